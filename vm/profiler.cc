#include "vm/profiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/hlo_opcode.h"

namespace hlovm {

//===----------------------------------------------------------------------===//
// Recording.
//===----------------------------------------------------------------------===//

struct Profiler::ThreadBuffer {
  int32_t thread = 0;
  std::vector<ProfileEvent> events;
};

namespace {
std::atomic<uint64_t> next_profiler_id{1};

// The calling thread's buffer of the profiler it last recorded for.
struct LocalCache {
  uint64_t profiler_id = 0;
  void* buffer = nullptr;
};
thread_local LocalCache local_cache;
}  // namespace

Profiler::Profiler() : id_(next_profiler_id.fetch_add(1, std::memory_order_relaxed)) {}
Profiler::~Profiler() = default;

int64_t Profiler::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Profiler::ThreadBuffer& Profiler::Local() {
  if (local_cache.profiler_id == id_) return *static_cast<ThreadBuffer*>(local_cache.buffer);
  absl::MutexLock lock(&mu_);
  auto buffer = std::make_unique<ThreadBuffer>();
  buffer->thread = static_cast<int32_t>(buffers_.size());
  buffer->events.reserve(1024);
  local_cache = {id_, buffer.get()};
  buffers_.push_back(std::move(buffer));
  return *buffers_.back();
}

void Profiler::Record(ProfileEvent event) {
  ThreadBuffer& local = Local();
  event.thread = local.thread;
  local.events.push_back(event);
}

int64_t Profiler::EventOverheadNs() {
  static const int64_t overhead = [] {
    // Two clock reads and an append, as RunProfiled does; the best of a few
    // rounds, so that a preempted round does not count.
    constexpr int kEvents = 4096;
    int64_t best = INT64_MAX;
    for (int round = 0; round < 5; ++round) {
      Profiler profiler;
      const int64_t t0 = NowNs();
      for (int i = 0; i < kEvents; ++i) {
        ProfileEvent e;
        e.begin_ns = NowNs();
        e.end_ns = NowNs();
        profiler.Record(e);
      }
      best = std::min(best, (NowNs() - t0) / kEvents);
    }
    return best;
  }();
  return overhead;
}

std::vector<ProfileEvent> Profiler::TakeEvents() {
  absl::MutexLock lock(&mu_);
  std::vector<ProfileEvent> all;
  for (auto& buffer : buffers_) {
    all.insert(all.end(), buffer->events.begin(), buffer->events.end());
    buffer->events.clear();
  }
  // Enclosing events first: by thread, begin, then longest first.
  std::sort(all.begin(), all.end(), [](const ProfileEvent& a, const ProfileEvent& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.begin_ns != b.begin_ns) return a.begin_ns < b.begin_ns;
    return a.end_ns > b.end_ns;
  });
  return all;
}

//===----------------------------------------------------------------------===//
// Costs.
//===----------------------------------------------------------------------===//

namespace {

double LeafBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    double total = 0;
    for (const Shape& s : shape.tuple_shapes()) total += LeafBytes(s);
    return total;
  }
  return shape.IsArray() ? static_cast<double>(std::max<int64_t>(0, shape.byte_size())) : 0;
}

double Elements(const Shape& shape) {
  if (shape.IsTuple()) {
    double total = 0;
    for (const Shape& s : shape.tuple_shapes()) total += Elements(s);
    return total;
  }
  return shape.IsArray() ? static_cast<double>(std::max<int64_t>(0, shape.element_count())) : 0;
}

// Instructions that only regroup, name or route values: their nested
// instructions carry the cost.
bool MovesNothing(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape:
    case HloOpcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

}  // namespace

InstructionCost EstimateCost(const HloInstruction& instr) {
  InstructionCost cost;
  const HloOpcode op = instr.opcode();
  if (MovesNothing(op)) return cost;
  const auto& operands = instr.operands();
  const double result_bytes = LeafBytes(instr.shape());
  switch (op) {
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kGather:
      // Reads only the part it returns (and the indices).
      cost.bytes = 2 * result_bytes;
      for (size_t k = 1; k < operands.size(); ++k) cost.bytes += LeafBytes(operands[k]->shape());
      break;
    case HloOpcode::kDynamicUpdateSlice:
      // In place: reads and writes the update's extent (and reads the indices).
      for (size_t k = 1; k < operands.size(); ++k) {
        cost.bytes += LeafBytes(operands[k]->shape()) * (k == 1 ? 2 : 1);
      }
      break;
    case HloOpcode::kScatter: {
      // In place: operands..., indices, updates...; reads indices and
      // updates, reads and writes the updated elements.
      const size_t n = (operands.size() - 1) / 2;
      for (size_t k = n; k < operands.size(); ++k) {
        cost.bytes += LeafBytes(operands[k]->shape()) * (k > n ? 2 : 1);
      }
      break;
    }
    default:
      cost.bytes = result_bytes;
      for (const HloInstruction* operand : operands) cost.bytes += LeafBytes(operand->shape());
  }
  const double out = Elements(instr.shape());
  switch (HloOpcodeFamily(op)) {
    case OpFamily::kUnary:
    case OpFamily::kBinary:
    case OpFamily::kTernary:
      cost.flops = out;
      break;
    case OpFamily::kReduce:
      if (op == HloOpcode::kReduce) {
        for (const HloInstruction* operand : instr.operands())
          cost.flops += Elements(operand->shape());
        cost.flops /= 2;  // the operands are inputs and their init values
      } else if (instr.attrs().window.has_value()) {
        double window = 1;
        for (const WindowDimension& d : *instr.attrs().window)
          window *= static_cast<double>(d.size);
        cost.flops = out * window;
      }
      break;
    case OpFamily::kDot:
      if (op == HloOpcode::kDot && instr.attrs().dot_dimension_numbers.has_value() &&
          instr.operand_count() >= 1) {
        double contracted = 1;
        const Shape& lhs = instr.operands()[0]->shape();
        for (int64_t d : instr.attrs().dot_dimension_numbers->lhs_contracting_dimensions) {
          if (d >= 0 && d < lhs.rank()) contracted *= static_cast<double>(lhs.dimensions(d));
        }
        cost.flops = 2 * out * contracted;
      } else if (op == HloOpcode::kConvolution &&
                 instr.attrs().convolution_dimension_numbers.has_value() &&
                 instr.operand_count() >= 2) {
        // Each output element sums over the kernel's elements of one output
        // feature (the input features of its group times the window).
        const Shape& rhs = instr.operands()[1]->shape();
        const int64_t of =
            instr.attrs().convolution_dimension_numbers->kernel_output_feature_dimension;
        const double per_feature =
            of >= 0 && of < rhs.rank() && rhs.dimensions(of) > 0
                ? Elements(rhs) / static_cast<double>(rhs.dimensions(of))
                : 0;
        cost.flops = 2 * out * per_feature;
      }
      break;
    case OpFamily::kFft: {
      double n = out;
      cost.flops = n > 1 ? 5 * n * std::log2(n) : 0;
      break;
    }
    default:
      break;
  }
  return cost;
}

//===----------------------------------------------------------------------===//
// Metadata.
//===----------------------------------------------------------------------===//

namespace {

// Reads `key="value"` or `key=value` from the text of a metadata attribute.
std::string MetadataField(std::string_view text, std::string_view key) {
  size_t at = 0;
  while ((at = text.find(key, at)) != std::string_view::npos) {
    const bool starts_word = at == 0 || text[at - 1] == ' ' || text[at - 1] == '{';
    const size_t eq = at + key.size();
    if (!starts_word || eq >= text.size() || text[eq] != '=') {
      at = eq;
      continue;
    }
    size_t p = eq + 1;
    std::string value;
    if (p < text.size() && text[p] == '"') {
      for (++p; p < text.size() && text[p] != '"'; ++p) {
        if (text[p] == '\\' && p + 1 < text.size()) ++p;
        value.push_back(text[p]);
      }
    } else {
      while (p < text.size() && text[p] != ' ' && text[p] != '}') value.push_back(text[p++]);
    }
    return value;
  }
  return "";
}

}  // namespace

OpMetadata GetOpMetadata(const HloInstruction& instr) {
  OpMetadata m;
  const std::optional<std::string_view> raw = instr.FindRawAttribute("metadata");
  if (!raw.has_value()) return m;
  m.op_name = MetadataField(*raw, "op_name");
  m.source_file = MetadataField(*raw, "source_file");
  const std::string line = MetadataField(*raw, "source_line");
  if (!line.empty()) m.source_line = std::strtoll(line.c_str(), nullptr, 10);
  return m;
}

std::string OpMetadata::SourceLocation() const {
  if (source_file.empty()) return "";
  if (source_line <= 0) return source_file;
  return absl::StrCat(source_file, ":", source_line);
}

//===----------------------------------------------------------------------===//
// Aggregation.
//===----------------------------------------------------------------------===//

double ProfileRow::RooflineFraction(const Roofline& roofline) const {
  if (self_ns <= 0) return 0;
  double bound_ns = 0;
  if (roofline.peak_gflops > 0) bound_ns = std::max(bound_ns, flops / roofline.peak_gflops);
  if (roofline.peak_gbps > 0) bound_ns = std::max(bound_ns, bytes / roofline.peak_gbps);
  return bound_ns / static_cast<double>(self_ns);
}

namespace {

// Self time of every instruction event (index-aligned with `events`, which
// are sorted by thread, begin, longest first): its duration minus the
// durations of the instruction events nested directly inside it on the same
// thread. Iteration events are transparent: what runs in an iteration is
// nested in its while loop.
std::vector<int64_t> SelfTimes(const std::vector<ProfileEvent>& events, int64_t overhead_ns) {
  std::vector<int64_t> self(events.size(), 0);
  std::vector<size_t> stack;  // open events on the current thread
  for (size_t i = 0; i < events.size(); ++i) {
    const ProfileEvent& e = events[i];
    if (i > 0 && events[i - 1].thread != e.thread) stack.clear();
    while (!stack.empty() && events[stack.back()].end_ns <= e.begin_ns) stack.pop_back();
    const bool instruction = e.kind == ProfileEvent::Kind::kInstruction;
    if (instruction) self[i] += e.end_ns - e.begin_ns;
    // The enclosing instruction loses this event's time (if it is an
    // instruction) and the cost of recording it.
    for (size_t k = stack.size(); k-- > 0;) {
      if (events[stack[k]].kind == ProfileEvent::Kind::kInstruction) {
        self[stack[k]] -= (instruction ? e.end_ns - e.begin_ns : 0) + overhead_ns;
        break;
      }
    }
    stack.push_back(i);
  }
  for (int64_t& s : self) s = std::max<int64_t>(s, 0);
  return self;
}

std::string OpNamePrefix(const std::string& op_name, int depth) {
  if (op_name.empty()) return "(no op_name)";
  std::vector<std::string> parts = absl::StrSplit(op_name, '/');
  if (static_cast<int>(parts.size()) > depth) parts.resize(depth);
  return absl::StrJoin(parts, "/");
}

}  // namespace

// A fused region counts the work of all its instructions.
static InstructionCost CostOf(const ProfileEvent& e) {
  if (e.fused != nullptr) return InstructionCost{e.fused->flops, e.fused->bytes};
  return EstimateCost(*e.hlo);
}

int64_t TotalSelfNs(const std::vector<ProfileEvent>& events, int64_t overhead_ns) {
  int64_t total = 0;
  for (int64_t s : SelfTimes(events, overhead_ns)) total += s;
  return total;
}

std::vector<ProfileRow> AggregateProfile(const std::vector<ProfileEvent>& events,
                                         ProfileGrouping grouping, int op_name_depth,
                                         int64_t overhead_ns) {
  const std::vector<int64_t> self = SelfTimes(events, overhead_ns);
  absl::flat_hash_map<const HloInstruction*, InstructionCost> costs;
  absl::flat_hash_map<std::string, ProfileRow> rows;
  for (size_t i = 0; i < events.size(); ++i) {
    const ProfileEvent& e = events[i];
    if (e.kind != ProfileEvent::Kind::kInstruction || e.hlo == nullptr) continue;
    auto [it, inserted] = costs.try_emplace(e.hlo);
    if (inserted) it->second = CostOf(e);
    std::string key;
    std::string detail;
    switch (grouping) {
      case ProfileGrouping::kOpcode:
        key = e.fused != nullptr ? "fusion" : std::string(HloOpcodeName(e.hlo->opcode()));
        break;
      case ProfileGrouping::kInstruction: {
        key = e.hlo->name();
        const OpMetadata m = GetOpMetadata(*e.hlo);
        detail = absl::StrCat(
            e.fused != nullptr ? absl::StrCat("fusion of ", e.fused->ops, " ops to ") : "",
            std::string(HloOpcodeName(e.hlo->opcode())), " ", e.hlo->shape().ToString(false));
        if (!m.op_name.empty()) absl::StrAppend(&detail, "  ", m.op_name);
        if (const std::string loc = m.SourceLocation(); !loc.empty()) {
          absl::StrAppend(&detail, "  ", loc);
        }
        break;
      }
      case ProfileGrouping::kOpName:
        key = OpNamePrefix(GetOpMetadata(*e.hlo).op_name, op_name_depth);
        break;
    }
    ProfileRow& row = rows[key];
    if (row.key.empty()) {
      row.key = key;
      row.detail = detail;
    }
    ++row.calls;
    row.self_ns += self[i];
    row.flops += it->second.flops;
    row.bytes += it->second.bytes;
  }
  std::vector<ProfileRow> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const ProfileRow& a, const ProfileRow& b) {
    if (a.self_ns != b.self_ns) return a.self_ns > b.self_ns;
    return a.key < b.key;
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Chrome trace.
//===----------------------------------------------------------------------===//

namespace {

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

// Microseconds with nanosecond precision, as the trace format wants.
std::string Micros(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return buf;
}

}  // namespace

std::string ChromeTraceJson(const std::vector<ProfileEvent>& events,
                            const std::string& process_name) {
  int64_t origin = INT64_MAX;
  // One process per instance (replicated runs), one track per thread in it.
  std::map<int32_t, std::set<int32_t>> tracks;
  for (const ProfileEvent& e : events) {
    origin = std::min(origin, e.begin_ns);
    tracks[e.instance].insert(e.thread);
  }
  if (events.empty()) {
    origin = 0;
    tracks[0].insert(0);
  }
  const bool replicated = tracks.size() > 1 || tracks.begin()->first != 0;
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  for (const auto& [instance, threads] : tracks) {
    absl::StrAppend(&out, first ? "" : ",\n", "{\"ph\":\"M\",\"pid\":", instance,
                    ",\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":");
    first = false;
    AppendJsonString(&out, replicated ? absl::StrCat(process_name, " instance ", instance)
                                      : process_name);
    out.append("}}");
    for (int32_t t : threads) {
      absl::StrAppend(&out, ",\n{\"ph\":\"M\",\"pid\":", instance, ",\"tid\":", t,
                      ",\"name\":\"thread_name\",\"args\":{\"name\":\"thread ", t, "\"}}");
    }
  }
  absl::flat_hash_map<const HloInstruction*, std::pair<InstructionCost, std::string>> info;
  for (const ProfileEvent& e : events) {
    if (e.hlo == nullptr) continue;
    absl::StrAppend(&out, ",\n{\"ph\":\"X\",\"pid\":", e.instance, ",\"tid\":", e.thread,
                    ",\"ts\":", Micros(e.begin_ns - origin),
                    ",\"dur\":", Micros(e.end_ns - e.begin_ns), ",\"name\":");
    if (e.kind == ProfileEvent::Kind::kIteration) {
      AppendJsonString(&out, absl::StrCat(e.hlo->name(), " iteration ", e.iteration));
      absl::StrAppend(&out, ",\"cat\":\"iteration\",\"args\":{\"iteration\":", e.iteration, "}}");
      continue;
    }
    AppendJsonString(&out, e.hlo->name());
    auto [it, inserted] = info.try_emplace(e.hlo);
    if (inserted) it->second = {CostOf(e), GetOpMetadata(*e.hlo).op_name};
    out.append(",\"cat\":");
    AppendJsonString(
        &out, e.fused != nullptr ? std::string_view("fusion") : HloOpcodeName(e.hlo->opcode()));
    out.append(",\"args\":{\"shape\":");
    AppendJsonString(&out, e.hlo->shape().ToString(false));
    absl::StrAppend(&out, ",\"bytes\":", static_cast<int64_t>(it->second.first.bytes),
                    ",\"flops\":", static_cast<int64_t>(it->second.first.flops));
    if (e.computation != nullptr) {
      out.append(",\"computation\":");
      AppendJsonString(&out, e.computation->name());
    }
    if (!it->second.second.empty()) {
      out.append(",\"op_name\":");
      AppendJsonString(&out, it->second.second);
    }
    out.append("}}");
  }
  out.append("\n]}\n");
  return out;
}

}  // namespace hlovm
