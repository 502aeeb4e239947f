// The `hlovm._hlovm` extension module: HLO text compiled and run from Python
// with NumPy arrays in and out (python/hlovm/__init__.py re-exports it and
// adds the parts written in Python).
//
//   m = hlovm.compile(text)            # hlovm.load(path); passes=, fusion=
//   y = m(x, w)                        # NumPy in, NumPy out; tuples as tuples
//   ys = m.run_replicated([[x0], [x1]])
//
// Inputs are read in place (Literal::View, no copy) when their dtype matches
// the parameter's element type, their strides are a dense permutation (any
// layout) and their data is aligned to the element size; anything else is
// converted or copied first. Results are arrays over the VM's own result
// buffers: a capsule owns each result Literal. The GIL is released while a
// module compiles and runs. SIGINT during a run cancels it (a handler that
// chains to Python's sets the run's cancel flag), and the run raises
// KeyboardInterrupt (or whatever Python's handler raises).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <signal.h>
#include <time.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/literal.h"
#include "core/shape.h"
#include "frontend/parser.h"
#include "frontend/printer.h"
#include "vm/api.h"
#include "vm/check_failure.h"
#include "vm/custom_call.h"
#include "vm/profiler.h"

namespace py = pybind11;

namespace hlovm {
namespace python {
namespace {

//===----------------------------------------------------------------------===//
// Exceptions.
//===----------------------------------------------------------------------===//

struct ErrorTypes {
  py::object error, parse, verify, check;
};
ErrorTypes& Errors() {
  static ErrorTypes* types = new ErrorTypes();
  return *types;
}

// Raises `type(message)` with the given attributes set on the instance.
[[noreturn]] void Raise(const py::object& type, const std::string& message,
                        std::vector<std::pair<const char*, py::object>> attributes) {
  py::object instance = type(message);
  for (auto& [name, value] : attributes) instance.attr(name) = value;
  PyErr_SetObject(type.ptr(), instance.ptr());
  throw py::error_already_set();
}

// A located message, "file:line:col: error: text\nsource line\ncaret", as
// the parser and the verifier write them (file may be empty).
struct Location {
  std::string file;
  int64_t line = 0;
  int64_t column = 0;
  std::string message;  // the text after "error: " on the first line
  std::string caret;    // the source line and the caret line
};
std::optional<Location> ParseLocation(std::string_view text) {
  const size_t newline = text.find('\n');
  std::string_view first = text.substr(0, newline);
  const size_t marker = first.find(": error: ");
  if (marker == std::string_view::npos) return std::nullopt;
  std::string_view prefix = first.substr(0, marker);
  const size_t colon2 = prefix.rfind(':');
  if (colon2 == std::string_view::npos) return std::nullopt;
  const size_t colon1 = prefix.rfind(':', colon2 == 0 ? 0 : colon2 - 1);
  std::string_view line_text, column_text = prefix.substr(colon2 + 1);
  Location location;
  if (colon1 == std::string_view::npos) {
    line_text = prefix.substr(0, colon2);
  } else {
    line_text = prefix.substr(colon1 + 1, colon2 - colon1 - 1);
    location.file = std::string(prefix.substr(0, colon1));
  }
  auto number = [](std::string_view s, int64_t* out) {
    if (s.empty()) return false;
    int64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
  };
  if (!number(line_text, &location.line) || !number(column_text, &location.column)) {
    return std::nullopt;
  }
  location.message = std::string(first.substr(marker + 9));
  if (newline != std::string_view::npos) {
    std::string_view rest = text.substr(newline + 1);
    // The source line and the caret under it: two lines.
    size_t end = rest.find('\n');
    if (end != std::string_view::npos) end = rest.find('\n', end + 1);
    location.caret = std::string(rest.substr(0, end));
  }
  return location;
}

// Line `line` (1-based) of `text` and a caret under column `column`.
std::string CaretFor(std::string_view text, int64_t line, int64_t column) {
  size_t start = 0;
  for (int64_t l = 1; l < line && start != std::string_view::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos || start > text.size()) return "";
  std::string_view source = text.substr(start, text.find('\n', start) - start);
  if (!source.empty() && source.back() == '\r') source.remove_suffix(1);
  std::string caret;
  for (int64_t i = 0; i + 1 < column && i < static_cast<int64_t>(source.size()); ++i) {
    caret.push_back(source[i] == '\t' ? '\t' : ' ');
  }
  return absl::StrCat(std::string(source), "\n", caret, "^");
}

// Raises ParseError / VerifyError (`located`) with the location of the
// first message, or hlovm.Error. `text` is the module's source.
[[noreturn]] void RaiseCompileError(const absl::Status& status, const py::object& located,
                                    std::string_view text) {
  std::string message(status.message());
  if (std::optional<Location> location = ParseLocation(message)) {
    if (location->caret.empty()) {
      // The verifier names the place; the source line and caret come from here.
      location->caret = CaretFor(text, location->line, location->column);
      const size_t newline = message.find('\n');
      message.insert(newline == std::string::npos ? message.size() : newline,
                     absl::StrCat("\n", location->caret));
    }
    Raise(located, message,
          {{"file", py::str(location->file)},
           {"line", py::int_(location->line)},
           {"column", py::int_(location->column)},
           {"caret", py::str(location->caret)},
           {"error", py::str(location->message)}});
  }
  Raise(Errors().error, message, {{"code", py::str(absl::StatusCodeToString(status.code()))}});
}

// The exception for a failed run.
[[noreturn]] void RaiseRunError(const absl::Status& status) {
  const std::string message(status.message());
  if (std::optional<CheckFailure> failure = GetCheckFailure(status)) {
    py::list index;
    for (int64_t i : failure->index) index.append(i);
    Raise(Errors().check, message,
          {{"check", py::str(failure->check)},
           {"kind", py::str(failure->kind)},
           {"index", py::tuple(index)},
           {"actual", py::str(failure->actual)},
           {"expected", py::str(failure->expected)},
           {"mismatch_count", py::int_(failure->mismatch_count)},
           {"element_count", py::int_(failure->element_count)},
           {"replica_id", py::int_(failure->replica_id)}});
  }
  if (status.code() == absl::StatusCode::kInvalidArgument) throw py::value_error(message);
  Raise(Errors().error, message, {{"code", py::str(absl::StatusCodeToString(status.code()))}});
}

//===----------------------------------------------------------------------===//
// Ctrl-C: every run takes a cancel flag from a fixed table; a SIGINT
// handler sets the flags of the runs in progress and then calls the handler
// it replaced (Python's, which records the signal for the main thread).
//===----------------------------------------------------------------------===//

constexpr int kCancelSlots = 256;
std::array<std::atomic<bool>, kCancelSlots> g_slot_used{};
std::array<std::atomic<bool>, kCancelSlots> g_slot_cancel{};
std::atomic<bool> g_interrupted{false};  // a SIGINT arrived during some run
struct sigaction g_previous_action;
std::mutex g_handler_mu;

void OnSigint(int signal, siginfo_t* info, void* context) {
  for (int i = 0; i < kCancelSlots; ++i) {
    if (g_slot_used[i].load(std::memory_order_acquire)) {
      g_slot_cancel[i].store(true, std::memory_order_release);
    }
  }
  g_interrupted.store(true);
  if (g_previous_action.sa_flags & SA_SIGINFO) {
    g_previous_action.sa_sigaction(signal, info, context);
  } else if (g_previous_action.sa_handler != SIG_DFL && g_previous_action.sa_handler != SIG_IGN) {
    g_previous_action.sa_handler(signal);
  }
}

// Puts OnSigint in front of the current SIGINT handler unless it is there,
// or the signal is ignored or left at its default (which ends the process).
void EnsureSigintHandler() {
  // At most one check every 50 ms: a call costs no system call, and a
  // handler Python installs later is chained to within 50 ms.
  static std::atomic<int64_t> next_check_ns{0};
  // The coarse clock (a few ms resolution) reads in a few ns.
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  const int64_t now = int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
  if (now < next_check_ns.load(std::memory_order_relaxed)) return;
  next_check_ns.store(now + 50'000'000, std::memory_order_relaxed);
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &OnSigint) return;
  std::lock_guard<std::mutex> lock(g_handler_mu);
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &OnSigint) return;
  if (!(current.sa_flags & SA_SIGINFO) &&
      (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) {
    return;
  }
  g_previous_action = current;
  struct sigaction ours = current;
  ours.sa_flags |= SA_SIGINFO;
  ours.sa_sigaction = &OnSigint;
  sigaction(SIGINT, &ours, nullptr);
}

// A cancel flag for one run (null when all slots are taken).
class CancelSlot {
 public:
  CancelSlot() {
    for (int i = 0; i < kCancelSlots; ++i) {
      bool expected = false;
      if (g_slot_used[i].compare_exchange_strong(expected, true)) {
        g_slot_cancel[i].store(false);
        index_ = i;
        return;
      }
    }
  }
  ~CancelSlot() {
    if (index_ >= 0) g_slot_used[index_].store(false, std::memory_order_release);
  }
  const std::atomic<bool>* flag() const { return index_ >= 0 ? &g_slot_cancel[index_] : nullptr; }
  bool cancelled() const { return index_ >= 0 && g_slot_cancel[index_].load(); }

 private:
  int index_ = -1;
};

// After a cancelled run: lets Python run its SIGINT handler (which raises
// KeyboardInterrupt by default) or raises KeyboardInterrupt itself.
[[noreturn]] void RaiseInterrupted() {
  g_interrupted.store(false);
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw py::error_already_set();
}

//===----------------------------------------------------------------------===//
// Element types and dtypes.
//===----------------------------------------------------------------------===//

// NumPy's dtype for the element types it has ("" for the others).
const char* NativeDtype(ElementType type) {
  switch (type) {
    case ElementType::kPred: return "bool";
    case ElementType::kS8: return "int8";
    case ElementType::kS16: return "int16";
    case ElementType::kS32: return "int32";
    case ElementType::kS64: return "int64";
    case ElementType::kU8: return "uint8";
    case ElementType::kU16: return "uint16";
    case ElementType::kU32: return "uint32";
    case ElementType::kU64: return "uint64";
    case ElementType::kF16: return "float16";
    case ElementType::kF32: return "float32";
    case ElementType::kF64: return "float64";
    case ElementType::kC64: return "complex64";
    case ElementType::kC128: return "complex128";
    default: return "";
  }
}

// The dtype whose bits `raw=True` returns: the unsigned type of the width.
const char* RawDtype(ElementType type) {
  switch (ByteWidth(type)) {
    case 1: return "uint8";
    case 2: return "uint16";
    case 4: return "uint32";
    case 8: return "uint64";
    default: return "";
  }
}

// Per element type: NumPy's own dtype, the ml_dtypes one when that package
// is importable (set by __init__.py), and the raw-bits dtype.
struct Dtypes {
  std::array<py::object, ElementTypeCount()> native, extra, raw;
};
Dtypes& TypeTable() {
  static Dtypes* table = [] {
    auto* t = new Dtypes();
    for (int i = 0; i < ElementTypeCount(); ++i) {
      const ElementType type = static_cast<ElementType>(i);
      if (!IsArrayType(type)) continue;
      if (*NativeDtype(type) != '\0') t->native[i] = py::dtype(NativeDtype(type));
      if (*RawDtype(type) != '\0') t->raw[i] = py::dtype(RawDtype(type));
    }
    return t;
  }();
  return *table;
}

bool SameDtype(PyObject* a, const py::object& b) {
  if (!b) return false;
  if (a == b.ptr()) return true;
  // The same type in either byte order (a byte-swapped array is copied).
  auto* pa = py::detail::array_descriptor_proxy(a);
  auto* pb = py::detail::array_descriptor_proxy(b.ptr());
  return pa->type_num == pb->type_num && pa->elsize == pb->elsize;
}

std::string DtypeName(ElementType type) {
  const Dtypes& table = TypeTable();
  const int i = static_cast<int>(type);
  if (table.extra[i]) return py::str(table.extra[i]);
  if (table.native[i]) return py::str(table.native[i]);
  return absl::StrCat("float values or ", RawDtype(type), " bits");
}

//===----------------------------------------------------------------------===//
// Arguments.
//===----------------------------------------------------------------------===//

// What one call keeps alive: the argument literals and the arrays they view.
struct Arguments {
  std::vector<Literal> literals;
  std::vector<py::object> keep;
  std::vector<const Literal*> pointers() const {
    std::vector<const Literal*> out;
    out.reserve(literals.size());
    for (const Literal& l : literals) out.push_back(&l);
    return out;
  }
};

std::string DescribeArray(const py::array& array) {
  std::vector<std::string> dims;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) dims.push_back(std::to_string(array.shape(d)));
  return absl::StrCat(std::string(py::str(array.dtype())), " array of shape (",
                      absl::StrJoin(dims, ", "), array.ndim() == 1 ? ",)" : ")");
}

// The layout whose dense strides `array` has (nullopt when none does).
std::optional<Layout> DenseLayout(const py::array& array, int64_t item) {
  const int64_t rank = array.ndim();
  std::vector<int64_t> order(rank);
  for (int64_t d = 0; d < rank; ++d) order[d] = d;
  // Minor to major: smallest stride first; size-1 dimensions anywhere, taken
  // as minor as their stride says (ties by dimension, major first).
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (array.strides(a) != array.strides(b)) return array.strides(a) < array.strides(b);
    return a > b;
  });
  int64_t expected = item;
  for (int64_t d : order) {
    if (array.shape(d) != 1 && array.strides(d) != expected) return std::nullopt;
    expected *= array.shape(d);
  }
  Layout layout;
  layout.minor_to_major.assign(order.begin(), order.end());
  return layout;
}

// Converts float values (or integers for the sub-byte integer types) into a
// new literal of `shape`'s element type, rounding as the text parser does.
Literal ConvertValues(const py::array& array, const Shape& shape, const std::string& what) {
  py::array_t<double, py::array::c_style | py::array::forcecast> values(array);
  absl::StatusOr<Literal> literal = Literal::CreateUninitialized(Shape(
      shape.element_type(), std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end())));
  if (!literal.ok()) throw py::value_error(absl::StrCat(what, ": ", literal.status().message()));
  const double* data = values.data();
  for (int64_t i = 0; i < literal->shape().element_count(); ++i) {
    absl::Status status = literal->SetFromDouble(i, data[i]);
    if (!status.ok()) throw py::value_error(absl::StrCat(what, ": ", status.message()));
  }
  return std::move(literal).value();
}

// `object` as an argument of `shape`, appended to `args`. `what` names it
// in errors ("parameter 1 (w1)").
Literal ToLiteral(py::handle object, const Shape& shape, const std::string& what, Arguments& args) {
  if (shape.IsTuple()) {
    if (!py::isinstance<py::tuple>(object) && !py::isinstance<py::list>(object)) {
      throw py::value_error(absl::StrCat(what, ": expected a tuple for ", shape.ToString(false)));
    }
    py::sequence items = py::reinterpret_borrow<py::sequence>(object);
    if (static_cast<int64_t>(items.size()) != shape.tuple_size()) {
      throw py::value_error(absl::StrCat(what, ": expected a tuple of ", shape.tuple_size(),
                                         " elements, got ", items.size()));
    }
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      elements.push_back(
          ToLiteral(items[i], shape.tuple_shape(i), absl::StrCat(what, "[", i, "]"), args));
    }
    return Literal::Tuple(std::move(elements));
  }
  if (shape.IsToken()) {
    absl::StatusOr<Literal> token = Literal::Create(shape);
    return token.ok() ? std::move(token).value() : Literal();
  }
  const ElementType type = shape.element_type();
  const Dtypes& table = TypeTable();
  const int t = static_cast<int>(type);
  py::array array;
  if (py::isinstance<py::array>(object)) {
    array = py::reinterpret_borrow<py::array>(object);
  } else {
    // Python scalars and lists take the parameter's type.
    const py::object& dtype = table.native[t] ? table.native[t] : table.extra[t];
    array = dtype ? py::array(py::module_::import("numpy").attr("asarray")(object, dtype))
                  : py::array(py::module_::import("numpy").attr("asarray")(object));
  }
  // Dimensions.
  bool same_dims = array.ndim() == shape.rank();
  for (int64_t d = 0; same_dims && d < shape.rank(); ++d) {
    same_dims = array.shape(d) == shape.dimensions(d);
  }
  if (!same_dims) {
    throw py::value_error(absl::StrCat(what, ": expected ", shape.ToString(false), " (",
                                       DtypeName(type), "), got ", DescribeArray(array)));
  }
  PyObject* dtype = reinterpret_cast<PyObject*>(py::detail::array_proxy(array.ptr())->descr);
  const bool in_place_type = SameDtype(dtype, table.native[t]) || SameDtype(dtype, table.extra[t]) ||
                             (!table.native[t] && !table.extra[t] && SameDtype(dtype, table.raw[t]));
  if (!in_place_type) {
    const char kind = py::detail::array_descriptor_proxy(dtype)->kind;
    const bool values_ok =
        !table.native[t] && (kind == 'f' || (IsInteger(type) && (kind == 'i' || kind == 'u')));
    if (!values_ok) {
      throw py::value_error(absl::StrCat(what, ": expected ", shape.ToString(false), " (",
                                         DtypeName(type), "), got ", DescribeArray(array)));
    }
    return ConvertValues(array, shape, what);
  }
  const int64_t item = ByteWidth(type);
  const int64_t align = item >= 16 ? 16 : item;
  auto* proxy = py::detail::array_proxy(array.ptr());
  const char byteorder = py::detail::array_descriptor_proxy(dtype)->byteorder;
  std::optional<Layout> layout;
  const bool aligned = reinterpret_cast<uintptr_t>(proxy->data) % align == 0;
  if (aligned && byteorder != '>') {
    if (proxy->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) {
      layout = Layout::RowMajor(shape.rank());
    } else {
      layout = DenseLayout(array, item);
    }
  }
  if (!layout.has_value()) {
    // Misaligned, byte-swapped or strided: a fresh row-major copy.
    py::object native = table.native[t] ? table.native[t] : (table.extra[t] ? table.extra[t] : table.raw[t]);
    array = py::array(array.attr("astype")(native, py::arg("order") = "C", py::arg("copy") = true));
    layout = Layout::RowMajor(shape.rank());
  }
  void* data = py::detail::array_proxy(array.ptr())->data;
  absl::StatusOr<Literal> view;
  if (shape.has_layout() && shape.layout().minor_to_major == layout->minor_to_major) {
    view = Literal::View(shape, data);  // the parameter's own layout (the common case)
  } else {
    Shape view_shape(type,
                     std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end()));
    view_shape.set_layout(*std::move(layout));
    view = Literal::View(view_shape, data);
  }
  if (!view.ok()) throw py::value_error(absl::StrCat(what, ": ", view.status().message()));
  args.keep.push_back(array);
  return std::move(view).value();
}

//===----------------------------------------------------------------------===//
// Results.
//===----------------------------------------------------------------------===//

// Sub-byte integers as one whole value per byte: sign-extended for s2/s4,
// masked for u2/u4 (the VM reads only the low bits).
void NormalizeSubByte(Literal& literal) {
  const ElementType type = literal.shape().element_type();
  if (!IsSubByte(type) || !IsInteger(type)) return;
  const int bits = BitWidth(type);
  uint8_t* p = literal.untyped_data();
  for (int64_t i = 0; i < literal.size_bytes(); ++i) {
    if (IsSignedInteger(type)) {
      p[i] = static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(p[i] << (8 - bits))) >>
                                  (8 - bits));
    } else {
      p[i] &= static_cast<uint8_t>((1u << bits) - 1);
    }
  }
}

py::object ToPython(Literal&& literal, bool raw) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    py::tuple out(literal.tuple_elements().size());
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      out[i] = ToPython(std::move(literal.tuple_elements()[i]), raw);
    }
    return out;
  }
  if (!shape.IsArray()) return py::none();
  const ElementType type = shape.element_type();
  const Dtypes& table = TypeTable();
  const int t = static_cast<int>(type);
  std::vector<py::ssize_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  py::object dtype;
  if (raw) {
    dtype = table.raw[t];
  } else if (table.native[t]) {
    dtype = table.native[t];
  } else if (table.extra[t]) {
    dtype = table.extra[t];
    NormalizeSubByte(literal);
  } else if (IsInteger(type)) {
    // Sub-byte integers without ml_dtypes: their values as int8 / uint8.
    NormalizeSubByte(literal);
    dtype = table.raw[t];  // uint8
    if (IsSignedInteger(type)) dtype = py::dtype("int8");
  } else {
    // Small floats without ml_dtypes: their values as float32.
    py::array_t<float> values(dims);
    std::vector<int64_t> m2m = shape.minor_to_major();
    // Physical order to logical (row-major) position.
    const int64_t n = shape.element_count();
    const int64_t rank = shape.rank();
    std::vector<int64_t> logical_stride(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d) logical_stride[d] = logical_stride[d + 1] * dims[d + 1];
    std::vector<int64_t> index(rank, 0);
    float* out = values.mutable_data();
    for (int64_t p = 0; p < n; ++p) {
      int64_t pos = 0;
      for (int64_t d = 0; d < rank; ++d) pos += index[d] * logical_stride[d];
      out[pos] = static_cast<float>(literal.GetAsDouble(p));
      for (int64_t k = 0; k < rank; ++k) {
        const int64_t d = m2m[k];
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
    return values;
  }
  py::dtype descr = py::reinterpret_borrow<py::dtype>(dtype);
  if (shape.element_count() == 0 || literal.untyped_data() == nullptr) {
    return py::array(descr, dims);
  }
  // The array views the literal's storage and keeps the literal alive: no
  // copy. Made with NumPy's own call (pybind11's constructor copies the
  // dimensions into vectors first; this runs once per result of every call).
  const int64_t item = ByteWidth(type);
  const int rank = static_cast<int>(dims.size());
  absl::InlinedVector<Py_intptr_t, 8> sizes(dims.begin(), dims.end()), strides(rank);
  Py_intptr_t stride = item;
  for (int64_t d : shape.layout().minor_to_major) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  auto* owner = new Literal(std::move(literal));
  py::capsule base(owner, [](void* p) { delete static_cast<Literal*>(p); });
  const auto& api = py::detail::npy_api::get();
  auto array = py::reinterpret_steal<py::object>(api.PyArray_NewFromDescr_(
      api.PyArray_Type_, descr.release().ptr(), rank, sizes.data(), strides.data(),
      owner->untyped_data(), py::detail::npy_api::NPY_ARRAY_WRITEABLE_, nullptr));
  if (!array) throw py::error_already_set();
  if (api.PyArray_SetBaseObject_(array.ptr(), base.release().ptr()) != 0) {
    throw py::error_already_set();
  }
  return array;
}

//===----------------------------------------------------------------------===//
// Modules.
//===----------------------------------------------------------------------===//

struct CompileSettings {
  std::string file_name;
  std::string passes = "default";
  bool fusion = true;
  int64_t replicas = 0;
  int64_t partitions = 0;
  std::string elided = "xla";
};

class Module {
 public:
  static std::shared_ptr<Module> Compile(std::string text, CompileSettings settings) {
    CompileOptions options;
    options.file_name = settings.file_name;
    options.passes = settings.passes;
    options.fusion = settings.fusion;
    options.replica_count = settings.replicas;
    options.num_partitions = settings.partitions;
    if (settings.elided == "zeros") {
      options.elided = ElidedFill::kZeros;
    } else if (settings.elided == "error") {
      options.elided = ElidedFill::kError;
    } else if (settings.elided != "xla") {
      throw py::value_error("elided must be 'xla', 'zeros' or 'error'");
    }
    absl::StatusOr<std::unique_ptr<HloModule>> parsed;
    absl::StatusOr<std::unique_ptr<Executable>> exe;
    {
      py::gil_scoped_release release;
      ParseOptions parse;
      parse.file_name = settings.file_name;
      parsed = ParseHloModule(text, parse);
      if (parsed.ok()) exe = Executable::FromModule(std::move(parsed).value(), options);
    }
    if (!parsed.ok()) RaiseCompileError(parsed.status(), Errors().parse, text);
    if (!exe.ok()) RaiseCompileError(exe.status(), Errors().verify, text);
    auto module = std::make_shared<Module>();
    module->exe_ = std::shared_ptr<const Executable>(std::move(exe).value());
    module->text_ = std::move(text);
    module->settings_ = std::move(settings);
    const HloComputation& entry = *module->exe_->module().entry();
    for (int64_t i = 0; i < entry.parameter_count(); ++i) {
      module->names_.push_back(entry.parameter(i)->name());
      module->what_.push_back(absl::StrCat("parameter ", i, " (", entry.parameter(i)->name(), ")"));
    }
    module->direct_ = true;
    for (const Shape& shape : module->exe_->parameter_shapes()) {
      DirectParameter p;
      p.row_major = shape.IsArray() && shape.has_layout() &&
                    shape.layout().minor_to_major == Layout::RowMajor(shape.rank()).minor_to_major;
      if (!p.row_major) {
        module->direct_ = false;
        break;
      }
      p.type = static_cast<int>(shape.element_type());
      p.dims.assign(shape.dimensions().begin(), shape.dimensions().end());
      const int64_t item = ByteWidth(shape.element_type());
      p.align = item >= 16 ? 16 : item;
      module->direct_parameters_.push_back(std::move(p));
    }
    return module;
  }

  const std::string& text() const { return text_; }
  const Executable& exe() const { return *exe_; }

  // The module after its passes, as a module of its own (the same compiled
  // program when these were its passes).
  std::shared_ptr<Module> Opt(const std::string& passes) const {
    if (passes == settings_.passes) {
      auto module = std::make_shared<Module>(*this);
      module->text_ = PrintModule(exe_->module(), PrintOptions::Long());
      return module;
    }
    CompileSettings settings = settings_;
    settings.passes = passes;
    std::shared_ptr<Module> compiled = Compile(text_, settings);
    compiled->text_ = PrintModule(compiled->exe_->module(), PrintOptions::Long());
    return compiled;
  }

  // The arguments of one call, checked against the parameters.
  void MakeArguments(py::sequence inputs, Arguments& args, const std::string& prefix = "") const {
    const std::vector<Shape>& shapes = exe_->parameter_shapes();
    if (inputs.size() != shapes.size()) {
      throw py::value_error(absl::StrCat(prefix, "the module takes ", shapes.size(), " input",
                                         shapes.size() == 1 ? "" : "s", " (",
                                         absl::StrJoin(names_, ", "), "), got ", inputs.size()));
    }
    args.literals.reserve(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      args.literals.push_back(ToLiteral(
          inputs[i], shapes[i], prefix.empty() ? what_[i] : absl::StrCat(prefix, what_[i]), args));
    }
  }

  // The common call's arguments, read without a Literal each: when every
  // parameter is an array laid out row-major and every input a C-contiguous,
  // aligned, native-order ndarray of its parameter's dtype and shape, fills
  // `data` with their elements' addresses and returns true. Otherwise
  // returns false and the general path (MakeArguments) decides.
  bool DirectArguments(py::handle inputs, absl::InlinedVector<const void*, 8>& data) const {
    if (!direct_ || !PyTuple_CheckExact(inputs.ptr()) ||
        static_cast<size_t>(PyTuple_GET_SIZE(inputs.ptr())) != direct_parameters_.size()) {
      return false;
    }
    const Dtypes& table = TypeTable();
    const auto& api = py::detail::npy_api::get();
    for (size_t i = 0; i < direct_parameters_.size(); ++i) {
      const DirectParameter& p = direct_parameters_[i];
      PyObject* object = PyTuple_GET_ITEM(inputs.ptr(), i);
      if (!api.PyArray_Check_(object)) return false;
      const auto* array = py::detail::array_proxy(object);
      if (array->nd != static_cast<int>(p.dims.size())) return false;
      for (size_t d = 0; d < p.dims.size(); ++d) {
        if (array->dimensions[d] != p.dims[d]) return false;
      }
      if (!(array->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) ||
          reinterpret_cast<uintptr_t>(array->data) % p.align != 0) {
        return false;
      }
      PyObject* dtype = array->descr;
      if (py::detail::array_descriptor_proxy(dtype)->byteorder == '>' ||
          !(SameDtype(dtype, table.native[p.type]) || SameDtype(dtype, table.extra[p.type]))) {
        return false;
      }
      data.push_back(array->data);
    }
    return true;
  }

  py::object Run(py::sequence inputs, int threads, bool raw, Profiler* profiler = nullptr) const {
    Arguments args;
    absl::InlinedVector<const void*, 8> direct;
    std::vector<const Literal*> pointers;
    const bool is_direct = DirectArguments(inputs, direct);
    if (!is_direct) {
      MakeArguments(inputs, args);
      pointers = args.pointers();
    }
    EnsureSigintHandler();
    absl::StatusOr<Literal> result;
    bool cancelled = false;
    {
      py::gil_scoped_release release;
      CancelSlot slot;
      ExecuteOptions options;
      options.threads = threads;
      options.cancel = slot.flag();
      options.profiler = profiler;
      result = is_direct ? exe_->ExecuteArrays(direct, options) : exe_->Execute(pointers, options);
      cancelled = slot.cancelled();
    }
    if (!result.ok()) {
      if (cancelled) RaiseInterrupted();
      RaiseRunError(result.status());
    }
    return ToPython(std::move(result).value(), raw);
  }

  py::list RunReplicated(py::sequence per_instance, int threads, bool raw) const {
    const int64_t instances = exe_->module().replica_count * exe_->module().num_partitions;
    if (static_cast<int64_t>(per_instance.size()) != instances && per_instance.size() != 1) {
      throw py::value_error(absl::StrCat("the module runs as ", instances,
                                         " instances; give one input list for each (or one for all), "
                                         "got ",
                                         per_instance.size()));
    }
    const bool single = exe_->parameter_shapes().size() == 1;
    std::vector<Arguments> args(per_instance.size());
    std::vector<std::vector<const Literal*>> pointers;
    for (size_t i = 0; i < per_instance.size(); ++i) {
      py::object entry = per_instance[i];
      py::sequence inputs = (single && !py::isinstance<py::tuple>(entry) && !py::isinstance<py::list>(entry))
                                ? py::sequence(py::make_tuple(entry))
                                : py::sequence(entry);
      MakeArguments(inputs, args[i], absl::StrCat("instance ", i, ": "));
      pointers.push_back(args[i].pointers());
    }
    EnsureSigintHandler();
    std::vector<absl::StatusOr<Literal>> results;
    bool cancelled = false;
    {
      py::gil_scoped_release release;
      CancelSlot slot;
      ReplicatedOptions options;
      options.threads = threads;
      options.interrupt = slot.flag();
      results = ExecuteReplicated(*exe_, pointers, options);
      cancelled = slot.cancelled();
    }
    if (cancelled) RaiseInterrupted();
    // The first instance's own failure, not the cancellations it caused.
    const absl::Status* failure = nullptr;
    for (const auto& r : results) {
      if (r.ok()) continue;
      if (failure == nullptr || (failure->code() == absl::StatusCode::kCancelled &&
                                 r.status().code() != absl::StatusCode::kCancelled)) {
        failure = &r.status();
      }
    }
    if (failure != nullptr) RaiseRunError(*failure);
    py::list out;
    for (auto& r : results) out.append(ToPython(std::move(r).value(), raw));
    return out;
  }

  py::object Profile(py::sequence inputs, int threads, int top) const {
    Profiler profiler;
    py::object result = Run(inputs, threads, false, &profiler);
    std::vector<ProfileEvent> events = profiler.TakeEvents();
    const int64_t overhead = Profiler::EventOverheadNs();
    const int64_t total = TotalSelfNs(events, overhead);
    auto rows = [&](ProfileGrouping grouping) {
      py::list list;
      std::vector<ProfileRow> aggregated = AggregateProfile(events, grouping, 2, overhead);
      for (const ProfileRow& row : aggregated) {
        if (top > 0 && static_cast<int>(py::len(list)) >= top) break;
        py::dict d;
        d["name"] = row.key;
        d["detail"] = row.detail;
        d["calls"] = row.calls;
        d["self_ns"] = row.self_ns;
        d["share"] = total > 0 ? static_cast<double>(row.self_ns) / total : 0.0;
        d["gflops"] = row.gflops();
        d["gbps"] = row.gbps();
        list.append(d);
      }
      return list;
    };
    py::object profile_type = py::module_::import("hlovm").attr("Profile");
    return profile_type(rows(ProfileGrouping::kInstruction), rows(ProfileGrouping::kOpcode),
                        total, result);
  }

  py::list Parameters() const {
    py::list out;
    for (size_t i = 0; i < names_.size(); ++i) {
      out.append(py::make_tuple(names_[i], exe_->parameter_shapes()[i].ToString()));
    }
    return out;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::shared_ptr<const Executable> exe_;
  std::string text_;
  CompileSettings settings_;
  std::vector<std::string> names_;
  std::vector<std::string> what_;  // "parameter 1 (w1)", for errors
  // What DirectArguments checks, per parameter; direct_ when every
  // parameter is an array laid out row-major.
  struct DirectParameter {
    bool row_major = false;
    int type = 0;  // the ElementType
    std::vector<int64_t> dims;
    int64_t align = 1;
  };
  bool direct_ = false;
  std::vector<DirectParameter> direct_parameters_;
};

// custom_call_target="hlovm.test.address_of" (registered by
// _register_test_targets, for the tests): its u64[] result is the address
// of the elements its operand was read from.
class AddressOf : public PreparedCustomCall {
 public:
  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const uint64_t address = reinterpret_cast<uintptr_t>(operands[0].data);
    std::memcpy(results[0].data, &address, sizeof(address));
    return absl::OkStatus();
  }
};

}  // namespace

// Module's call slot. pybind11's general dispatcher (argument vectors,
// keyword matching, the instance's type looked up by name) costs about as
// much as running a small module; this reads the positional arguments and
// the two keywords itself and does what Module.run does.
PyObject* CallModule(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    int threads = 0;
    bool raw = false;
    if (kwargs != nullptr) {
      PyObject* key = nullptr;
      PyObject* value = nullptr;
      Py_ssize_t position = 0;
      while (PyDict_Next(kwargs, &position, &key, &value)) {
        const std::string name = py::handle(key).cast<std::string>();
        if (name == "threads") {
          const long n = PyLong_Check(value) ? PyLong_AsLong(value) : -1;
          if (!PyLong_Check(value) || n < 0 || n > (1 << 20)) {
            PyErr_Clear();
            throw py::type_error(absl::StrCat("threads must be a count (an int >= 0), not ",
                                              std::string(py::repr(value))));
          }
          threads = static_cast<int>(n);
        } else if (name == "raw") {
          const int truth = PyObject_IsTrue(value);
          if (truth < 0) throw py::error_already_set();
          raw = truth != 0;
        } else {
          throw py::type_error(
              absl::StrCat("Module() got an unexpected keyword argument '", name, "'"));
        }
      }
    }
    // Only instances of Module (or of a subclass) reach this slot: their
    // value is found without looking the type up by name.
    static py::detail::type_info* const info = py::detail::get_type_info(typeid(Module));
    const auto* module = reinterpret_cast<py::detail::instance*>(self)
                             ->get_value_and_holder(info)
                             .value_ptr<Module>();
    if (module == nullptr) throw py::type_error("an uninitialised hlovm.Module");
    return module->Run(py::reinterpret_borrow<py::tuple>(args), threads, raw).release().ptr();
  } catch (...) {
    py::detail::translate_exception(std::current_exception());
    return nullptr;
  }
}

PYBIND11_MODULE(_hlovm, m) {
  m.doc() = "hlovm: run XLA HLO text on the CPU with NumPy arrays";
  ErrorTypes& errors = Errors();
  errors.error = py::reinterpret_steal<py::object>(
      PyErr_NewExceptionWithDoc("hlovm.Error", "An error from hlovm.", PyExc_RuntimeError, nullptr));
  errors.parse = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "hlovm.ParseError", "HLO text that does not parse; .file, .line, .column, .caret.",
      errors.error.ptr(), nullptr));
  errors.verify = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "hlovm.VerifyError", "A module the verifier refuses; .file, .line, .column, .caret.",
      errors.error.ptr(), nullptr));
  errors.check = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "hlovm.CheckFailure", "A failed check custom call; .check, .index, .actual, .expected.",
      errors.error.ptr(), nullptr));
  m.attr("Error") = errors.error;
  m.attr("ParseError") = errors.parse;
  m.attr("VerifyError") = errors.verify;
  m.attr("CheckFailure") = errors.check;

  py::class_<Module, std::shared_ptr<Module>> module_class(m, "Module", "A compiled HLO module.");
  module_class
      .def_property_readonly("text", &Module::text, "The HLO text it was compiled from.")
      .def_property_readonly(
          "parameters", &Module::Parameters,
          "(name, shape) of every entry parameter, shapes with the layouts they are read in.")
      .def_property_readonly(
          "result_shape", [](const Module& self) { return self.exe().result_shape().ToString(); })
      .def_property_readonly("instances",
                             [](const Module& self) {
                               return self.exe().module().replica_count *
                                      self.exe().module().num_partitions;
                             })
      .def_property_readonly(
          "disassembly", [](const Module& self) { return self.exe().Disassemble(); },
          "The bytecode, as `hlovm dis` prints it.")
      .def(
          "dis",
          [](const Module& self) {
            py::print(self.exe().Disassemble(), py::arg("end") = "");
          },
          "Prints the bytecode.")
      .def("opt", &Module::Opt, py::arg("passes") = "default",
           "The module after the pass pipeline, as a module (its .text is the optimized HLO).")
      .def(
          "__call__",
          [](const Module& self, py::args args, int threads, bool raw) {
            return self.Run(args, threads, raw);
          },
          py::arg("threads") = 0, py::arg("raw") = false)
      .def(
          "run",
          [](const Module& self, py::args args, int threads, bool raw) {
            return self.Run(args, threads, raw);
          },
          py::arg("threads") = 0, py::arg("raw") = false,
          "Runs the entry computation: one NumPy array (or nested tuple) per parameter. "
          "threads=0 uses every core; raw=True returns the bits of types NumPy lacks.")
      .def("run_replicated", &Module::RunReplicated, py::arg("inputs"), py::arg("threads") = 0,
           py::arg("raw") = false,
           "Runs every instance (replica x partition) at once: inputs holds one argument list "
           "per instance (or one for all; a bare array for one-parameter modules). Returns "
           "the results per instance.")
      .def(
          "profile",
          [](const Module& self, py::args args, int threads, int top) {
            return self.Profile(args, threads, top);
          },
          py::arg("threads") = 0, py::arg("top") = 20,
          "Runs once under the profiler; returns a Profile (rows by instruction and by opcode).")
      .def("__repr__", [](const Module& self) {
        return absl::StrCat("<hlovm.Module ", self.exe().module().name(), ": (",
                            absl::StrJoin(self.names(), ", "), ") -> ",
                            self.exe().result_shape().ToString(false), ">");
      });
  // Calls take the direct slot; __call__ above stays for help() and for
  // code that looks the method up by name.
  reinterpret_cast<PyTypeObject*>(module_class.ptr())->tp_call = &CallModule;

  m.def(
      "compile",
      [](std::string text, std::string passes, bool fusion, int64_t replicas, int64_t partitions,
         std::string elided, std::string file_name) {
        return Module::Compile(std::move(text), {.file_name = std::move(file_name),
                                                 .passes = std::move(passes),
                                                 .fusion = fusion,
                                                 .replicas = replicas,
                                                 .partitions = partitions,
                                                 .elided = std::move(elided)});
      },
      py::arg("text"), py::kw_only(), py::arg("passes") = "default", py::arg("fusion") = true,
      py::arg("replicas") = 0, py::arg("partitions") = 0, py::arg("elided") = "xla",
      py::arg("file_name") = "",
      "Compiles HLO text. passes: 'none', 'default' or a list; replicas/partitions replace "
      "the module's counts (0: its own).");
  m.def(
      "_set_extra_dtypes",
      [](py::dict dtypes) {
        Dtypes& table = TypeTable();
        for (auto [name, dtype] : dtypes) {
          std::optional<ElementType> type = ElementTypeFromName(py::str(name).cast<std::string>());
          if (!type.has_value()) throw py::value_error("unknown element type");
          table.extra[static_cast<int>(*type)] = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
        }
      },
      "Sets the dtypes (ml_dtypes) of element types NumPy lacks, by HLO type name.");
  m.def(
      "_register_test_targets",
      [] {
        RegisterCustomCallTarget(
            "hlovm.test.address_of",
            [](const HloInstruction&) -> absl::StatusOr<std::unique_ptr<PreparedCustomCall>> {
              return std::make_unique<AddressOf>();
            });
      },
      "For the tests: registers custom_call_target=\"hlovm.test.address_of\".");
  m.def("element_types", [] {
    py::list out;
    for (int i = 0; i < ElementTypeCount(); ++i) {
      const ElementType type = static_cast<ElementType>(i);
      if (IsArrayType(type)) out.append(std::string(ElementTypeName(type)));
    }
    return out;
  });
}

}  // namespace python
}  // namespace hlovm
