#include "ops/reduce/reduce_shape.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// (bound - 1) * dilation + 1, or -1 on overflow.
int64_t DilatedBound(int64_t bound, int64_t dilation) {
  if (bound == 0) return 0;
  int64_t out = 0;
  if (!CheckedMul(bound - 1, dilation, &out) || !CheckedAdd(out, 1, &out)) return -1;
  return out;
}

int64_t StridedBound(int64_t bound, int64_t window, int64_t stride) {
  if (window > bound) return 0;
  return (bound - window) / stride + 1;
}

std::string WindowText(const WindowDimension& d) {
  return absl::StrFormat("{size=%d stride=%d pad=%d_%d lhs_dilate=%d rhs_dilate=%d}", d.size,
                         d.stride, d.padding_low, d.padding_high, d.base_dilation,
                         d.window_dilation);
}

}  // namespace

absl::Status VerifyReducerShape(const ComputationSignature& reducer,
                                absl::Span<const Shape* const> init_values,
                                absl::Span<const ElementType> input_element_types) {
  const int64_t inputs = static_cast<int64_t>(init_values.size());
  if (static_cast<int64_t>(reducer.parameters.size()) != inputs * 2) {
    return Invalid(absl::StrFormat(
        "Reduction function must take %d parameters, but takes %d parameter(s).", inputs * 2,
        reducer.parameters.size()));
  }
  const Shape& accumulator = reducer.result;
  std::vector<const Shape*> accumulators;
  if (accumulator.IsArray()) {
    if (inputs != 1) {
      return Invalid(absl::StrFormat(
          "Reduction function must produce a tuple with %d elements, but produces a scalar",
          inputs));
    }
    accumulators.push_back(&accumulator);
  } else if (accumulator.IsTuple()) {
    if (accumulator.tuple_size() != inputs) {
      return Invalid(absl::StrFormat(
          "Reduction function must produce a tuple with %d elements, but has %d elements",
          inputs, accumulator.tuple_size()));
    }
    for (const Shape& s : accumulator.tuple_shapes()) accumulators.push_back(&s);
  } else {
    return Invalid(absl::StrFormat(
        "Reduction function must produce a scalar or tuple of scalars, but has shape: %s",
        ShapeText(accumulator)));
  }
  for (const Shape* s : accumulators) {
    if (!IsScalar(*s)) {
      return Invalid(absl::StrFormat(
          "Reduction function must return a scalar or tuple of scalars but returns shape: %s",
          ShapeText(accumulator)));
    }
  }
  for (int64_t i = 0; i < inputs; ++i) {
    if (!ShapesCompatible(*accumulators[i], reducer.parameters[i])) {
      return Invalid(absl::StrFormat(
          "Reduction function's %d-th parameter shape differs from the result shape: %s vs %s",
          i, ShapeText(reducer.parameters[i]), ShapeText(*accumulators[i])));
    }
    if (!ShapesCompatible(*accumulators[i], *init_values[i], /*ignore_fp_precision=*/true)) {
      return Invalid(absl::StrFormat(
          "Reduction function's accumulator shape at index %d differs from the init_value "
          "shape: %s vs %s",
          i, ShapeText(*accumulators[i]), ShapeText(*init_values[i])));
    }
    const Shape input_element = ScalarShape(input_element_types[i]);
    if (!ShapesCompatible(input_element, reducer.parameters[inputs + i], true)) {
      return Invalid(absl::StrFormat(
          "Reduction function's %d-th parameter shape differs from the input type element "
          "type: %s vs %s",
          inputs + i, ShapeText(reducer.parameters[inputs + i]), ShapeText(input_element)));
    }
    if (!ShapesCompatible(*accumulators[i], reducer.parameters[inputs + i], true)) {
      return Invalid(absl::StrFormat(
          "Reduction function's %d-th parameter shape must match the result shape, but got "
          "%s vs %s.",
          inputs + i, ShapeText(reducer.parameters[inputs + i]), ShapeText(*accumulators[i])));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base, const Window& window,
                                             ElementType element_type) {
  if (static_cast<int64_t>(window.size()) != base.rank()) {
    return Invalid(absl::StrFormat("Window has dimension %d but base shape has dimension %d.",
                                   window.size(), base.rank()));
  }
  std::vector<int64_t> dims(window.size());
  std::vector<bool> dynamic(window.size());
  for (size_t i = 0; i < window.size(); ++i) {
    const WindowDimension& d = window[i];
    if (d.size <= 0) {
      return Invalid(absl::StrFormat("Window %s has a non-positive dimension.", WindowText(d)));
    }
    if (d.stride <= 0) {
      return Invalid(absl::StrFormat("Window %s has a non-positive stride.", WindowText(d)));
    }
    if (d.base_dilation < 1) {
      return Invalid(absl::StrFormat(
          "Window %s has a non-positive base area dilation factor.", WindowText(d)));
    }
    if (d.window_dilation < 1) {
      return Invalid(absl::StrFormat(
          "Window %s has a non-positive window dilation factor.", WindowText(d)));
    }
    dynamic[i] = base.is_dynamic_dimension(i);
    if (base.dimensions(i) == kUnboundedSize) {
      dims[i] = kUnboundedSize;
      continue;
    }
    const int64_t dilated_base = DilatedBound(base.dimensions(i), d.base_dilation);
    const int64_t dilated_window = DilatedBound(d.size, d.window_dilation);
    int64_t padded = 0;
    if (dilated_base < 0 || dilated_window < 0 ||
        !CheckedAdd(d.padding_low, dilated_base, &padded) ||
        !CheckedAdd(padded, d.padding_high, &padded)) {
      return DimensionOverflow(absl::StrFormat("Window %s", WindowText(d)));
    }
    dims[i] = StridedBound(padded, dilated_window, d.stride);
    if (dims[i] < 0) dims[i] = 0;
  }
  return MakeArrayShape(element_type, dims, dynamic);
}

absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions,
                                       const ComputationSignature& to_apply) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return Invalid(absl::StrFormat(
        "Expected an even number of arguments (inputs and init values), got %u.",
        operands.size()));
  }
  const size_t n = operands.size() / 2;
  auto inputs = operands.subspan(0, n);
  auto inits = operands.subspan(n);
  for (size_t i = 0; i < n; ++i) {
    HLOVM_RETURN_IF_ERROR(ExpectArray(*inputs[i], "input of reduce"));
  }
  const Shape& arg = *inputs[0];
  for (size_t i = 1; i < n; ++i) {
    if (!SameDimensions(arg, *inputs[i])) {
      return Invalid(absl::StrFormat(
          "All reduced tensors must have the same dimension. Tensor 0 has shape %s, Tensor "
          "%d has shape %s",
          ShapeText(arg), i, ShapeText(*inputs[i])));
    }
  }
  for (int64_t d : dimensions) {
    if (d < 0 || d >= arg.rank()) {
      return Invalid(absl::StrFormat("Reducing out-of-bounds dimension %d in shape %s.", d,
                                     ShapeText(arg)));
    }
  }
  if (!AllUnique(dimensions)) {
    return Invalid(absl::StrFormat("Duplicate reduction dimension in {%s}.",
                                   absl::StrJoin(dimensions, ",")));
  }
  std::vector<ElementType> element_types;
  for (const Shape* s : inputs) element_types.push_back(s->element_type());
  HLOVM_RETURN_IF_ERROR(VerifyReducerShape(to_apply, inits, element_types));

  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < arg.rank(); ++i) {
    bool reduced = false;
    for (int64_t d : dimensions) reduced = reduced || d == i;
    if (reduced) continue;
    dims.push_back(arg.dimensions(i));
    dynamic.push_back(arg.is_dynamic_dimension(i));
  }
  if (n == 1) {
    return MakeArrayShape(to_apply.result.element_type(), dims, dynamic);
  }
  std::vector<Shape> results;
  for (const Shape& s : to_apply.result.tuple_shapes()) {
    results.push_back(MakeArrayShape(s.element_type(), dims, dynamic));
  }
  return Shape::Tuple(std::move(results));
}

absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> operands,
                                             const Window& window,
                                             const ComputationSignature& to_apply) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return Invalid(absl::StrFormat(
        "Expected an even number of arguments (inputs and init values), got %u.",
        operands.size()));
  }
  const size_t n = operands.size() / 2;
  auto inputs = operands.subspan(0, n);
  auto inits = operands.subspan(n);
  for (size_t i = 0; i < n; ++i) {
    HLOVM_RETURN_IF_ERROR(ExpectArray(*inputs[i], "operand of reduce-window"));
    if (!SameDimensions(*inputs[0], *inputs[i])) {
      return Invalid(absl::StrFormat(
          "All reduced tensors must have the same dimension. Tensor 0 has shape %s, Tensor "
          "%d has shape %s",
          ShapeText(*inputs[0]), i, ShapeText(*inputs[i])));
    }
  }
  std::vector<ElementType> element_types;
  for (const Shape* s : inputs) element_types.push_back(s->element_type());
  HLOVM_RETURN_IF_ERROR(VerifyReducerShape(to_apply, inits, element_types));
  std::vector<Shape> results;
  for (size_t i = 0; i < n; ++i) {
    HLOVM_ASSIGN_OR_RETURN(Shape out,
                           InferWindowOutputShape(*inputs[i], window,
                                                  inits[i]->element_type()));
    results.push_back(std::move(out));
  }
  if (n == 1) return results[0];
  return Shape::Tuple(std::move(results));
}

absl::StatusOr<Shape> InferSelectAndScatterShape(const Shape& operand,
                                                 const ComputationSignature& select,
                                                 const Window& window, const Shape& source,
                                                 const Shape& init_value,
                                                 const ComputationSignature& scatter) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of select-and-scatter"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(source, "source of select-and-scatter"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(init_value, "init value of select-and-scatter"));
  if (select.parameters.size() != 2) {
    return Invalid(absl::StrFormat(
        "Select function must take 2 parameters, but takes %d parameter(s).",
        select.parameters.size()));
  }
  if (!IsScalar(select.result) || select.result.element_type() != ElementType::kPred) {
    return Invalid(absl::StrFormat("Select function must have rank-0 PRED result, got %s.",
                                   ShapeText(select.result)));
  }
  const Shape element = ScalarShape(operand.element_type());
  for (int i = 0; i < 2; ++i) {
    if (!ShapesCompatible(element, select.parameters[i])) {
      return Invalid(absl::StrFormat(
          "Select function's %s parameter shape currently must match the operand element "
          "shape, but got %s vs %s.",
          i == 0 ? "first" : "second", ShapeText(select.parameters[i]), ShapeText(element)));
    }
  }
  const Shape* init = &init_value;
  ElementType source_type = source.element_type();
  HLOVM_RETURN_IF_ERROR(VerifyReducerShape(scatter, {&init, 1}, {&source_type, 1}));
  HLOVM_ASSIGN_OR_RETURN(Shape window_result,
                         InferWindowOutputShape(operand, window, source.element_type()));
  if (!ShapesCompatible(source, window_result, true)) {
    return Invalid(absl::StrFormat(
        "Source shape does not match the shape of window-reduced operand: source(%s), "
        "window-reduced operand(%s).",
        ShapeText(source), ShapeText(window_result)));
  }
  return operand;
}

}  // namespace hlovm
