#include "ops/indexing/gather_scatter_shape.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/reduce/reduce_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Checks that `dims` is sorted, unique and within [0, bound).
absl::Status CheckDimList(std::string_view op, std::string_view name,
                          absl::Span<const int64_t> dims, int64_t bound,
                          bool require_sorted = true) {
  if (require_sorted && !std::is_sorted(dims.begin(), dims.end())) {
    return Invalid(absl::StrFormat("%s: %s in %s dimension numbers must be sorted; got: %s.",
                                   op, name, op, absl::StrJoin(dims, ",")));
  }
  if (!AllUnique(dims)) {
    return Invalid(absl::StrFormat("%s: repeated dimensions not allowed in %s; got: %s.", op,
                                   name, absl::StrJoin(dims, ",")));
  }
  for (int64_t d : dims) {
    if (d < 0 || d >= bound) {
      return Invalid(absl::StrFormat(
          "%s: invalid %s %d; it must be in [0, %d).", op, name, d, bound));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "input tensor operand of gather op"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(indices, "gather indices operand of gather op"));
  if (!IsInteger(indices.element_type())) {
    return Invalid(absl::StrFormat(
        "Gather indices parameter must be an integral tensor; got %s.", ShapeText(indices)));
  }
  const int64_t ivd = dnums.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return Invalid(absl::StrFormat(
        "Gather index leaf dimension must be within [0, rank(start_indices) + 1). "
        "rank(start_indices) is %d and gather index leaf dimension is %d.",
        indices.rank(), ivd));
  }
  // Batch dimensions of the indices: all but the index vector dimension.
  std::vector<int64_t> batch_dims;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != ivd) batch_dims.push_back(indices.dimensions(i));
  }
  const int64_t index_vector_size = ivd == indices.rank() ? 1 : indices.dimensions(ivd);
  const int64_t output_rank = static_cast<int64_t>(dnums.offset_dims.size() + batch_dims.size());

  HLOVM_RETURN_IF_ERROR(CheckDimList("Gather", "offset_dims", dnums.offset_dims, output_rank));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Gather", "collapsed_slice_dims",
                                     dnums.collapsed_slice_dims, operand.rank()));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Gather", "operand_batching_dims",
                                     dnums.operand_batching_dims, operand.rank()));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Gather", "start_index_map", dnums.start_index_map,
                                     operand.rank(), /*require_sorted=*/false));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Gather", "start_indices_batching_dims",
                                     dnums.start_indices_batching_dims, indices.rank(),
                                     /*require_sorted=*/false));
  if (Contains(dnums.start_indices_batching_dims, ivd)) {
    return Invalid(absl::StrFormat(
        "Gather op has start_indices_batching_dims which contains the index_vector_dim %d.",
        ivd));
  }
  if (static_cast<int64_t>(dnums.start_index_map.size()) != index_vector_size) {
    return Invalid(absl::StrFormat(
        "Gather op has %d elements in start_index_map and the bound of dimension "
        "index_vector_dim=%d of start_indices is %d. These two numbers must be equal.",
        dnums.start_index_map.size(), ivd, index_vector_size));
  }
  if (dnums.operand_batching_dims.size() != dnums.start_indices_batching_dims.size()) {
    return Invalid(absl::StrFormat(
        "Gather op requires the same number of operand_batching_dims (%d) and "
        "start_indices_batching_dims (%d).",
        dnums.operand_batching_dims.size(), dnums.start_indices_batching_dims.size()));
  }
  for (int64_t d : dnums.collapsed_slice_dims) {
    if (Contains(dnums.operand_batching_dims, d)) {
      return Invalid(absl::StrFormat(
          "Gather op: dimension %d is both a collapsed slice dim and an operand batching dim.",
          d));
    }
  }
  for (int64_t d : dnums.start_index_map) {
    if (Contains(dnums.operand_batching_dims, d)) {
      return Invalid(absl::StrFormat(
          "Gather op: start_index_map contains operand batching dim %d.", d));
    }
  }
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Invalid(absl::StrFormat(
        "Gather op must have one slice size for every input dimension; got: "
        "len(slice_sizes)=%u, input_shape.rank=%d.",
        slice_sizes.size(), operand.rank()));
  }
  const int64_t expected_offset =
      operand.rank() - static_cast<int64_t>(dnums.collapsed_slice_dims.size() +
                                            dnums.operand_batching_dims.size());
  if (static_cast<int64_t>(dnums.offset_dims.size()) != expected_offset) {
    return Invalid(absl::StrFormat(
        "All components of the offset index in a gather op must either be a offset "
        "dimension or explicitly collapsed/batching; got len(slice_sizes)=%u, "
        "output_slice_sizes=%s, collapsed_slice_dims=%s, operand_batching_dims=%s.",
        slice_sizes.size(), absl::StrJoin(dnums.offset_dims, ","),
        absl::StrJoin(dnums.collapsed_slice_dims, ","),
        absl::StrJoin(dnums.operand_batching_dims, ",")));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (slice_sizes[i] < 0 ||
        (operand.dimensions(i) != kUnboundedSize && slice_sizes[i] > operand.dimensions(i))) {
      return Invalid(absl::StrFormat(
          "Slice size at index %d in gather op is out of range, must be within [0, %d), got "
          "%d.",
          i, operand.dimensions(i) + 1, slice_sizes[i]));
    }
  }
  for (int64_t d : dnums.collapsed_slice_dims) {
    if (slice_sizes[d] > 1) {
      return Invalid(absl::StrFormat(
          "Gather op can only collapse slice dims with bound 1 or 0, but bound is %d for "
          "index %d at position %d.",
          slice_sizes[d], d, d));
    }
  }
  for (int64_t d : dnums.operand_batching_dims) {
    if (slice_sizes[d] > 1) {
      return Invalid(absl::StrFormat(
          "Gather op can only have operand batching dims with bound 0/1, but bound is %d for "
          "index %d.",
          slice_sizes[d], d));
    }
  }
  std::vector<int64_t> offset_sizes;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (Contains(dnums.collapsed_slice_dims, i) || Contains(dnums.operand_batching_dims, i)) {
      continue;
    }
    offset_sizes.push_back(slice_sizes[i]);
  }
  std::vector<int64_t> dims(output_rank);
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < output_rank; ++i) {
    if (Contains(dnums.offset_dims, i)) {
      dims[i] = offset_sizes[next_offset++];
    } else {
      dims[i] = batch_dims[next_batch++];
    }
  }
  return MakeArrayShape(operand.element_type(), dims);
}

absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape* const> operands,
                                        const ScatterDimensionNumbers& dnums,
                                        const ComputationSignature& to_apply) {
  if (operands.size() < 3 || operands.size() % 2 != 1) {
    return Invalid(absl::StrFormat(
        "Scatter expects 2n+1 operands (inputs, indices, updates), got %u.", operands.size()));
  }
  const size_t n = operands.size() / 2;
  auto inputs = operands.subspan(0, n);
  const Shape& indices = *operands[n];
  auto updates = operands.subspan(n + 1);
  for (size_t i = 0; i < n; ++i) {
    HLOVM_RETURN_IF_ERROR(ExpectArray(*inputs[i], "operand tensor of scatter op"));
    HLOVM_RETURN_IF_ERROR(ExpectArray(*updates[i], "updates tensor of scatter op"));
    if (!SameDimensions(*inputs[0], *inputs[i])) {
      return Invalid(absl::StrFormat(
          "Expected all scatter operands to have the same shape: %s vs %s.",
          ShapeText(*inputs[0]), ShapeText(*inputs[i])));
    }
    if (!SameDimensions(*updates[0], *updates[i])) {
      return Invalid(absl::StrFormat(
          "Expected all scatter updates to have the same shape: %s vs %s.",
          ShapeText(*updates[0]), ShapeText(*updates[i])));
    }
    if (!SameElementTypeIgnoringFp(*inputs[i], *updates[i])) {
      return Invalid(absl::StrFormat(
          "Expected updates element type %s to match the operand's %s.",
          ElementTypeName(updates[i]->element_type()), ElementTypeName(inputs[i]->element_type())));
    }
  }
  HLOVM_RETURN_IF_ERROR(ExpectArray(indices, "scatter indices of scatter op"));
  if (!IsInteger(indices.element_type())) {
    return Invalid(absl::StrFormat(
        "Scatter indices parameter must be an integral tensor; got %s.", ShapeText(indices)));
  }
  const Shape& operand = *inputs[0];
  const Shape& update = *updates[0];
  const int64_t ivd = dnums.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return Invalid(absl::StrFormat(
        "Scatter index leaf dimension must be within [0, rank(scatter_indices) + 1). "
        "rank(scatter_indices) is %d and scatter index leaf dimension is %d.",
        indices.rank(), ivd));
  }
  std::vector<int64_t> scatter_dims;  // indices' dimensions other than ivd
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != ivd) scatter_dims.push_back(indices.dimensions(i));
  }
  const int64_t index_vector_size = ivd == indices.rank() ? 1 : indices.dimensions(ivd);

  HLOVM_RETURN_IF_ERROR(CheckDimList("Scatter", "update_window_dims", dnums.update_window_dims,
                                     update.rank()));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Scatter", "inserted_window_dims",
                                     dnums.inserted_window_dims, operand.rank()));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Scatter", "input_batching_dims",
                                     dnums.input_batching_dims, operand.rank()));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Scatter", "scatter_dims_to_operand_dims",
                                     dnums.scatter_dims_to_operand_dims, operand.rank(),
                                     /*require_sorted=*/false));
  HLOVM_RETURN_IF_ERROR(CheckDimList("Scatter", "scatter_indices_batching_dims",
                                     dnums.scatter_indices_batching_dims, indices.rank(),
                                     /*require_sorted=*/false));
  if (Contains(dnums.scatter_indices_batching_dims, ivd)) {
    return Invalid(absl::StrFormat(
        "Scatter op has scatter_indices_batching_dims which contains the index_vector_dim "
        "%d.",
        ivd));
  }
  if (static_cast<int64_t>(dnums.scatter_dims_to_operand_dims.size()) != index_vector_size) {
    return Invalid(absl::StrFormat(
        "Scatter op has %d elements in scatter_dims_to_operand_dims and the bound of "
        "dimension index_vector_dim=%d of scatter_indices is %d. These two numbers must be "
        "equal.",
        dnums.scatter_dims_to_operand_dims.size(), ivd, index_vector_size));
  }
  if (dnums.input_batching_dims.size() != dnums.scatter_indices_batching_dims.size()) {
    return Invalid(absl::StrFormat(
        "Scatter op requires the same number of input_batching_dims (%d) and "
        "scatter_indices_batching_dims (%d).",
        dnums.input_batching_dims.size(), dnums.scatter_indices_batching_dims.size()));
  }
  const int64_t window_size = static_cast<int64_t>(dnums.update_window_dims.size());
  if (window_size + static_cast<int64_t>(dnums.inserted_window_dims.size() +
                                         dnums.input_batching_dims.size()) !=
      operand.rank()) {
    return Invalid(absl::StrFormat(
        "Scatter op has window of size %d; doesn't match operand of rank %d.",
        window_size + dnums.inserted_window_dims.size() + dnums.input_batching_dims.size(),
        operand.rank()));
  }
  const int64_t expected_updates_rank =
      window_size + static_cast<int64_t>(scatter_dims.size());
  if (update.rank() != expected_updates_rank) {
    return Invalid(absl::StrFormat("Updates tensor must be of rank %d; got %d.",
                                   expected_updates_rank, update.rank()));
  }
  // Window bounds.
  std::vector<int64_t> window_operand_dims;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (Contains(dnums.inserted_window_dims, i) || Contains(dnums.input_batching_dims, i)) {
      continue;
    }
    window_operand_dims.push_back(i);
  }
  for (int64_t i = 0; i < window_size; ++i) {
    const int64_t ud = dnums.update_window_dims[i];
    const int64_t od = window_operand_dims[i];
    if (update.dimensions(ud) != kUnboundedSize && operand.dimensions(od) != kUnboundedSize &&
        update.dimensions(ud) > operand.dimensions(od)) {
      return Invalid(absl::StrFormat(
          "Bounds of the window dimensions of updates must not exceed the bounds of the "
          "corresponding dimensions of operand. For dimension %d, updates bound is %d, "
          "operand bound is %d.",
          ud, update.dimensions(ud), operand.dimensions(od)));
    }
  }
  // Scatter dimensions of the updates must match the indices' batch dims.
  int64_t next = 0;
  for (int64_t i = 0; i < update.rank(); ++i) {
    if (Contains(dnums.update_window_dims, i)) continue;
    const int64_t expected = scatter_dims[next++];
    if (update.dimensions(i) != expected && update.dimensions(i) != kUnboundedSize &&
        expected != kUnboundedSize) {
      return Invalid(absl::StrFormat(
          "Bounds of the scatter dimensions of updates must be same as the bounds of the "
          "corresponding dimensions of scatter indices. For scatter dimension %d, updates "
          "bound is %d, scatter_indices bound is %d.",
          i, update.dimensions(i), expected));
    }
  }
  std::vector<const Shape*> inits;
  std::vector<Shape> init_storage;
  std::vector<ElementType> types;
  init_storage.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    init_storage.push_back(ScalarShape(inputs[i]->element_type()));
    types.push_back(updates[i]->element_type());
  }
  for (const Shape& s : init_storage) inits.push_back(&s);
  HLOVM_RETURN_IF_ERROR(VerifyReducerShape(to_apply, inits, types));
  if (n == 1) return operand;
  std::vector<Shape> results;
  for (const Shape* s : inputs) results.push_back(*s);
  return Shape::Tuple(std::move(results));
}

}  // namespace hlovm
