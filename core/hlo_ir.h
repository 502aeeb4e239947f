// The HLO IR: a module holds computations, a computation holds instructions in
// the order they were written. Instructions own nothing but their attributes;
// the computation owns its instructions and the module owns its computations,
// so pointers between them stay valid for the module's lifetime.
//
// The parser fills both the typed attribute fields below (which the verifier,
// compiler and kernels read) and `raw_attributes` (every `name=value` in the
// order written, value text verbatim), which lets the printer give XLA's text
// back. Not thread-safe for mutation; const access from many threads is fine.
#ifndef HLOVM_CORE_HLO_IR_H_
#define HLOVM_CORE_HLO_IR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "core/boxed.h"
#include "core/hlo_opcode.h"
#include "core/literal.h"
#include "core/raw_attributes.h"
#include "core/shape.h"

namespace hlovm {

class HloComputation;
class HloModule;

// Where an instruction, computation or attribute was written (byte offset in
// the source text, 1-based line and column). Line 0 means "not from text".
struct SourceLocation {
  size_t offset = 0;
  int line = 0;
  int column = 0;
};

//===----------------------------------------------------------------------===//
// Typed attributes.
//===----------------------------------------------------------------------===//

// slice={[start:limit:stride], ...}
struct SliceAttr {
  std::vector<int64_t> starts, limits, strides;
};

// One dimension of window={size=.. stride=.. pad=.. lhs_dilate=.. rhs_dilate=..
// rhs_reversal=..}.
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;  // rhs_dilate
  int64_t base_dilation = 1;    // lhs_dilate
  bool window_reversal = false;
};
using Window = std::vector<WindowDimension>;

// padding=low_high[_interior]x...
struct PaddingDimension {
  int64_t low = 0, high = 0, interior = 0;
};
using PaddingConfig = std::vector<PaddingDimension>;

// dim_labels=b01f_01io->b01f
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch_dimensions, rhs_batch_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions, rhs_contracting_dimensions;
  // ragged-dot only.
  std::vector<int64_t> lhs_ragged_dimensions, rhs_group_dimensions;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
};

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
// type= of compare; kDefault means "derived from the element type".
enum class ComparisonType : uint8_t { kDefault, kFloat, kTotalOrder, kSigned, kUnsigned };

// replica_groups: explicit lists {{0,1},{2,3}} or the iota form
// [G,S]<=[dims]T(perm); both are expanded into `groups`.
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;
  // The iota form as written (kept for printing), empty for explicit lists.
  std::string iota_text;
};

enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
enum class RandomDistribution : uint8_t { kUniform, kNormal };
enum class RngAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };
enum class TriangularSolveTranspose : uint8_t { kNoTranspose, kTranspose, kAdjoint };

// A tuple index path: {} is the whole value, {1, 0} element 0 of element 1.
using ShapeIndex = std::vector<int64_t>;

// output_to_operand_aliasing={{out}: (operand, {index}), ...} of custom-call,
// fusion and async-start.
struct OutputOperandAlias {
  ShapeIndex output_index;
  int64_t operand = 0;
  ShapeIndex operand_index;
};

// input_output_alias={ {out}: (param, {index}, must-alias), ... } in the
// module header.
struct InputOutputAlias {
  ShapeIndex output_index;
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  bool must_alias = false;
};

// buffer_donor={ (param, {index}), ... } in the module header.
struct BufferDonor {
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
};

// The stack frame index a module may carry after its header (the FileNames,
// FunctionNames, FileLocations and StackFrames sections); metadata refers to
// it with stack_frame_id=. Ids are 1-based, as written.
struct StackFrameIndex {
  struct FileLocation {
    int64_t file_name_id = 0, function_name_id = 0;
    int64_t line = 0, end_line = 0, column = 0, end_column = 0;
  };
  struct Frame {
    int64_t file_location_id = 0, parent_frame_id = 0;
  };
  std::vector<std::string> file_names;      // unescaped
  std::vector<std::string> function_names;  // unescaped
  std::vector<FileLocation> file_locations;
  std::vector<Frame> stack_frames;
};

//===----------------------------------------------------------------------===//
// HloInstruction.
//===----------------------------------------------------------------------===//

// The typed attributes of the opcodes that few instructions are (windows,
// dimension numbers, collectives, custom calls, ...). An instruction holds
// them behind one pointer, allocated only for those that set one: the
// instruction itself stays a few cache lines, which every pass over a large
// module reads, and creating or destroying one touches no more.
struct OpAttributes {
  std::vector<int64_t> dynamic_slice_sizes;
  std::optional<Window> window;
  std::optional<PaddingConfig> padding;
  Boxed<ConvolutionDimensionNumbers> convolution_dimension_numbers;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  Boxed<DotDimensionNumbers> dot_dimension_numbers;
  std::vector<std::string> operand_precision;  // "default", "high", "highest"
  Boxed<GatherDimensionNumbers> gather_dimension_numbers;
  std::vector<int64_t> gather_slice_sizes;
  Boxed<ScatterDimensionNumbers> scatter_dimension_numbers;
  bool indices_are_sorted = false;
  bool unique_indices = false;
  RandomDistribution distribution = RandomDistribution::kUniform;
  RngAlgorithm rng_algorithm = RngAlgorithm::kDefault;
  int64_t exponent_bits = 0, mantissa_bits = 0;  // reduce-precision
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;
  bool is_stable = false;           // sort
  int64_t k = 0;                    // topk
  bool largest = true;              // topk
  Boxed<ReplicaGroups> replica_groups;
  std::optional<int64_t> channel_id;
  bool use_global_device_ids = false;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  std::optional<int64_t> split_dimension;  // all-to-all
  std::string custom_call_target;
  bool custom_call_has_side_effect = false;
  std::string backend_config;  // the string form, unescaped
  std::string fusion_kind;     // kLoop, kInput, kOutput, kCustom
  bool left_side = false, lower = false, unit_diagonal = false;  // linalg
  TriangularSolveTranspose transpose_a = TriangularSolveTranspose::kNoTranspose;
  float epsilon = 0;          // batch-norm
  int64_t feature_index = 0;  // batch-norm
  bool is_host_transfer = false;

  // Async ops. For async-start/-update/-done written in the shorthand form
  // (`custom-call-start(...)`), the opcode of the wrapped instruction; the
  // parser then builds the wrapped computation itself.
  std::optional<HloOpcode> async_wrapped_opcode;
  // async-start: async_execution_thread= (empty means "main").
  std::string async_execution_thread;
  // custom-call, fusion, async-start.
  std::vector<OutputOperandAlias> output_to_operand_aliasing;
  // custom-call: schedule= and api_version= as written (empty if absent).
  std::string custom_call_schedule;
  std::string custom_call_api_version;
  // custom-call: operand_layout_constraints={shapes}.
  std::optional<std::vector<Shape>> operand_layout_constraints;
  // dot, convolution, scaled-dot: algorithm= as written.
  std::string precision_algorithm;
  // all-reduce, all-gather, all-to-all, reduce-scatter: constrain_layout=.
  bool constrain_layout = false;
  // reshape: inferred_dimension=.
  std::optional<int64_t> inferred_dimension;
  // scan: num_carries=, is_reverse=, is_associative=.
  int64_t num_carries = 0;
  bool is_reverse = false;
  bool is_associative = false;
  // call: is_composite=.
  bool is_composite = false;
  // rng-get-and-update-state: delta=.
  int64_t rng_delta = 0;
  // infeed_config= / outfeed_config= (unescaped) and outfeed_shape=.
  std::string infeed_config, outfeed_config;
  Boxed<Shape> outfeed_shape;
  // collective-permute(-start) with slice_sizes= (in-place form).
  std::vector<std::vector<int64_t>> collective_slice_sizes;
  // copy-start: cross_program_prefetch_index=.
  std::optional<int64_t> cross_program_prefetch_index;
  // parameter: parameter_replication={bools}.
  std::vector<bool> parameter_replication;
  // sharding={...} as written (without the outer braces' context), or empty.
  std::string sharding;
};

class HloInstruction {
 public:
  // A number an analysis may give each instruction of a computation for the
  // length of one walk (its position in the list, say), so that it indexes
  // plain vectors instead of hashing pointers. Meaningless between walks:
  // each walk sets it before reading it.
  mutable uint32_t scratch = 0;

 private:
  // What every walk over the graph reads comes first, then the typed
  // attributes CSE hashes, the name and the shape, so that a pass over a
  // large module reads an instruction's first few cache lines and no more
  // (a miss each: a module of ten thousand instructions is larger than the
  // cache). The attributes of the opcodes few instructions are live apart
  // (OpAttributes, above; attrs()).
  HloOpcode opcode_;
  HloComputation* parent_ = nullptr;
  // Up to three operands inline: reading them costs no cache miss of its own.
  absl::InlinedVector<HloInstruction*, 3> operands_;
  std::vector<HloComputation*> called_;
  std::vector<HloInstruction*> control_predecessors_;

 public:
  //===--- Typed attributes (meaningful for the opcodes named) ------------===//
  // Those of the common opcodes; the others are in attrs(). The large ones
  // most instructions lack are Boxed (core/boxed.h): one pointer each when
  // absent.

  // parameter: its number.
  int64_t parameter_number = 0;
  // get-tuple-element: index=.
  int64_t tuple_index = 0;
  // compare: direction= and type=.
  ComparisonDirection comparison_direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kDefault;
  // constant: its value (may be elided).
  Boxed<Literal> literal;
  // dimensions={...}: broadcast, reduce, transpose, reverse, concatenate, sort,
  // map, all-gather, all-to-all, reduce-scatter, topk-free ops that take them.
  std::vector<int64_t> dimensions;
  // iota: iota_dimension=; concatenate/all-gather/reduce-scatter keep theirs
  // in `dimensions`.
  int64_t iota_dimension = 0;
  Boxed<SliceAttr> slice;

 private:
  std::string name_;
  Shape shape_;
  SourceLocation location_;
  RawAttributes raw_attributes_;

 public:
  HloInstruction(HloOpcode opcode, std::string name, Shape shape)
      : opcode_(opcode), name_(std::move(name)), shape_(std::move(shape)) {}

  // Instructions are carved in address order from slabs (hlo_ir.cc).
  static void* operator new(size_t size);
  static void operator delete(void* block, size_t size) noexcept;

  HloOpcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  const absl::InlinedVector<HloInstruction*, 3>& operands() const { return operands_; }
  HloInstruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  void AppendOperand(HloInstruction* operand) { operands_.push_back(operand); }
  void ReplaceOperand(int64_t i, HloInstruction* operand) { operands_[i] = operand; }

  // Computations this instruction calls, in XLA's order: to_apply / calls /
  // called_computations (one or several); while: {condition, body};
  // conditional: the branches (true, false for the pred form);
  // select-and-scatter: {select, scatter}; sort/reduce/...: {to_apply}.
  const std::vector<HloComputation*>& called_computations() const { return called_; }
  void AppendCalledComputation(HloComputation* c) { called_.push_back(c); }
  HloComputation* to_apply() const { return called_.empty() ? nullptr : called_[0]; }

  const std::vector<HloInstruction*>& control_predecessors() const { return control_predecessors_; }
  void AddControlPredecessor(HloInstruction* i);

  HloComputation* parent() const { return parent_; }
  void set_parent(HloComputation* parent) { parent_ = parent; }

  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation location) { location_ = location; }

  // Every `name=value` attribute as written, in order (value text verbatim).
  RawAttributes& raw_attributes() { return raw_attributes_; }
  const RawAttributes& raw_attributes() const { return raw_attributes_; }
  // The raw text of attribute `name`, if written.
  std::optional<std::string_view> FindRawAttribute(std::string_view name) const {
    return raw_attributes_.Find(name);
  }

  // custom-call: literal= (move-only, so not among the Attributes).
  Boxed<Literal> custom_call_literal;

  // The typed attributes of the opcodes few instructions are: read-only
  // defaults where the instruction has none, allocated on the first write.
  const OpAttributes& attrs() const { return attrs_ != nullptr ? *attrs_ : NoAttributes(); }
  OpAttributes& mutable_attrs() {
    if (attrs_ == nullptr) attrs_ = std::make_unique<OpAttributes>();
    return *attrs_;
  }
  bool has_attrs() const { return attrs_ != nullptr; }
  void set_attrs(const OpAttributes& attrs) { attrs_ = std::make_unique<OpAttributes>(attrs); }

 private:
  // The defaults, made on first use (so that no static initializer elsewhere
  // can read them before they exist).
  static const OpAttributes& NoAttributes();
  std::unique_ptr<OpAttributes> attrs_;
};

//===----------------------------------------------------------------------===//
// HloComputation.
//===----------------------------------------------------------------------===//

class HloComputation {
 public:
  explicit HloComputation(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  bool is_entry() const { return is_entry_; }
  void set_is_entry(bool is_entry) { is_entry_ = is_entry; }

  // Instructions in the order written. Adds `instruction` and takes ownership.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  const std::vector<std::unique_ptr<HloInstruction>>& instructions() const { return instructions_; }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }

  // False only if no instruction of this computation has ever had a control
  // predecessor (set as instructions are added or given one); walks that
  // must treat control edges apart skip looking for them where it is false.
  bool may_have_control_edges() const { return may_have_control_edges_; }

  HloInstruction* root() const { return root_; }
  void set_root(HloInstruction* root) { root_ = root; }
  // Parameters indexed by parameter number (filled as instructions are added).
  const std::vector<HloInstruction*>& parameters() const { return parameters_; }
  HloInstruction* parameter(int64_t i) const { return parameters_[i]; }
  int64_t parameter_count() const { return static_cast<int64_t>(parameters_.size()); }

  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* parent) { parent_ = parent; }
  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation location) { location_ = location; }

  // execution_thread= after the closing brace (empty means "main").
  std::string execution_thread;
  // True for computations the parser built for an async shorthand
  // (`dot-start(...)`) or for an inline `to_apply={...}` body.
  bool is_async_wrapped = false;
  bool is_inline = false;

 private:
  friend class HloInstruction;  // AddControlPredecessor marks its computation
  std::string name_;
  bool is_entry_ = false;
  bool may_have_control_edges_ = false;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
  HloModule* parent_ = nullptr;
  SourceLocation location_;
};

//===----------------------------------------------------------------------===//
// HloModule.
//===----------------------------------------------------------------------===//

// The most instances (replica_count x num_partitions) a module may run as:
// a fixed number, so that whether a module is accepted does not depend on
// the machine. Each instance runs on a thread of its own with buffers of its
// own, and every collective keeps each instance's group (up to N x N ids:
// 8 MiB at 1024), so the cap keeps a run within what one host can hold.
inline constexpr int64_t kMaxInstances = 1024;

// OK if `replica_count` and `num_partitions` are each at least 1 and their
// product is at most kMaxInstances; else InvalidArgument saying which. The
// parser, the verifier, Executable::FromModule and the replicated runner
// call it, so that R x P and the buffers sized by it never overflow.
absl::Status ValidateInstanceCounts(int64_t replica_count, int64_t num_partitions);

class HloModule {
 public:
  explicit HloModule(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Computations in the order written; callees come before callers in XLA's
  // text, but the IR does not rely on that.
  HloComputation* AddComputation(std::unique_ptr<HloComputation> computation);
  const std::vector<std::unique_ptr<HloComputation>>& computations() const { return computations_; }
  HloComputation* FindComputation(std::string_view name) const;
  HloComputation* entry() const { return entry_; }
  void set_entry(HloComputation* entry) { entry_ = entry; }

  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  bool is_scheduled = false;
  bool alias_passthrough_params = false;
  // False when the text had no `HloModule` header (the name was made up).
  bool has_header = true;
  std::vector<InputOutputAlias> input_output_alias;
  std::vector<BufferDonor> buffer_donor;
  // entry_computation_layout={(params)->result}, when given.
  std::optional<std::vector<Shape>> entry_parameter_layouts;
  std::optional<Shape> entry_result_layout;
  // Every header attribute as written, in order (value text verbatim).
  std::vector<std::pair<std::string, std::string>> raw_attributes;
  // The stack frame index, when the text has one.
  std::optional<StackFrameIndex> stack_frame_index;

  // The source the module was parsed from (for error messages), if any.
  std::string source_name;
  std::shared_ptr<const std::string> source_text;

 private:
  std::string name_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
};

}  // namespace hlovm

#endif  // HLOVM_CORE_HLO_IR_H_
