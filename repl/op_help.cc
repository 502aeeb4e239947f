// `:help OPCODE` (see op_help.h): the table, written from the operation
// semantics the project implements, and its formatting.
#include "repl/op_help.h"

#include <array>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/hlo_opcode.h"
#include "repl/session.h"

namespace hlovm {
namespace repl {
namespace {

using O = HloOpcode;



constexpr OpHelp kOps[] = {
    {O::kAbs, "x", "", "|x| elementwise (of a complex number: its modulus, a real result)",
     "x = f32[3] constant({-1.5, 0.25, 2})\nabs(x)"},
    {O::kAcos, "x", "", "arc cosine elementwise (NaN outside [-1, 1])",
     "x = f32[3] constant({-0.5, 0, 0.75})\nacos(x)"},
    {O::kAcosh, "x", "", "inverse hyperbolic cosine elementwise (NaN below 1)",
     "x = f32[3] constant({1, 2, 10})\nacosh(x)"},
    {O::kAdd, "x, y", "", "x + y elementwise (same shapes: broadcast explicitly)",
     "x = f32[3] constant({-1.5, 0.25, 2})\nadd(x, x)"},
    {O::kAddDependency, "x, token", "",
     "x unchanged, ordered after whatever produced the token",
     "x = f32[3] constant({-1.5, 0.25, 2})\nadd-dependency(x, token[] after-all())"},
    {O::kAfterAll, "tokens...", "", "a token ordered after all operand tokens (none: a new one)",
     "after-all()"},
    {O::kAllGather, "x...", "dimensions={D}, replica_groups={{R,...},...}",
     "concatenates the x of each replica of a group along dimension D",
     ":replicas 2\nx = f32[2] constant({1, 2})\nf32[4] all-gather(x), dimensions={0}, "
     "replica_groups={{0,1}}"},
    {O::kAllGatherDone, "started", "", "the result of an all-gather-start",
     ":replicas 2\nag {\n  x = f32[2] parameter(0)\n  s = (f32[2], f32[4]) all-gather-start(x), "
     "dimensions={0}, replica_groups={{0,1}}\n  ROOT d = f32[4] all-gather-done(s)\n}\n"
     ":run ag f32[2] {1, 2}"},
    {O::kAllGatherStart, "x...", "dimensions={D}, replica_groups={{R,...},...}",
     "starts an all-gather: (operands, results) for all-gather-done",
     ":replicas 2\nag {\n  x = f32[2] parameter(0)\n  s = (f32[2], f32[4]) all-gather-start(x), "
     "dimensions={0}, replica_groups={{0,1}}\n  ROOT d = f32[4] all-gather-done(s)\n}\n"
     ":run ag f32[2] {1, 2}"},
    {O::kAllReduce, "x...", "replica_groups={{R,...},...} (or {}: all), to_apply=REDUCER",
     "combines x across the replicas of each group with the reducer",
     ":replicas 2\nx = f32[2] constant({1, 2})\nall-reduce(x), replica_groups={}, to_apply=add"},
    {O::kAllReduceDone, "started", "", "the result of an all-reduce-start",
     ":replicas 2\nar {\n  x = f32[2] parameter(0)\n  s = f32[2] all-reduce-start(x), "
     "replica_groups={}, to_apply=add\n  ROOT d = f32[2] all-reduce-done(s)\n}\n"
     ":run ar f32[2] {1, 2}"},
    {O::kAllReduceStart, "x...", "replica_groups={{R,...},...}, to_apply=REDUCER",
     "starts an all-reduce for all-reduce-done",
     ":replicas 2\nar {\n  x = f32[2] parameter(0)\n  s = f32[2] all-reduce-start(x), "
     "replica_groups={}, to_apply=add\n  ROOT d = f32[2] all-reduce-done(s)\n}\n"
     ":run ar f32[2] {1, 2}"},
    {O::kAllToAll, "x...", "dimensions={D}, replica_groups={{R,...},...}",
     "splits x along D into one piece per replica and exchanges the pieces",
     ":replicas 2\nx = f32[2] constant({1, 2})\nf32[2] all-to-all(x), dimensions={0}, "
     "replica_groups={{0,1}}"},
    {O::kAnd, "x, y", "", "bitwise and (logical for pred) elementwise",
     "x = s32[2] constant({12, 10})\ny = s32[2] constant({10, 6})\nand(x, y)"},
    {O::kAsin, "x", "", "arc sine elementwise (NaN outside [-1, 1])",
     "x = f32[3] constant({-0.5, 0, 0.75})\nasin(x)"},
    {O::kAsinh, "x", "", "inverse hyperbolic sine elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\nasinh(x)"},
    {O::kAsyncDone, "started", "calls=COMPUTATION", "waits for an async-start and gives its result",
     "neg {\n  p = s32[3] parameter(0)\n  ROOT n = s32[3] negate(p)\n}\n"
     "as {\n  x = s32[3] parameter(0)\n  s = ((s32[3]), s32[3]) async-start(x), calls=neg\n"
     "  ROOT d = s32[3] async-done(s), calls=neg\n}\n:run as s32[3] {1, 2, 3}"},
    {O::kAsyncStart, "args...", "calls=COMPUTATION",
     "starts COMPUTATION on the args: ((args), result) for async-update/async-done",
     "neg {\n  p = s32[3] parameter(0)\n  ROOT n = s32[3] negate(p)\n}\n"
     "as {\n  x = s32[3] parameter(0)\n  s = ((s32[3]), s32[3]) async-start(x), calls=neg\n"
     "  ROOT d = s32[3] async-done(s), calls=neg\n}\n:run as s32[3] {1, 2, 3}"},
    {O::kAsyncUpdate, "started", "calls=COMPUTATION", "passes an async-start's state on unchanged",
     "neg {\n  p = s32[3] parameter(0)\n  ROOT n = s32[3] negate(p)\n}\n"
     "as {\n  x = s32[3] parameter(0)\n  s = ((s32[3]), s32[3]) async-start(x), calls=neg\n"
     "  u = ((s32[3]), s32[3]) async-update(s), calls=neg\n"
     "  ROOT d = s32[3] async-done(u), calls=neg\n}\n:run as s32[3] {1, 2, 3}"},
    {O::kAtan, "x", "", "arc tangent elementwise", "x = f32[3] constant({-1.5, 0.25, 2})\natan(x)"},
    {O::kAtan2, "y, x", "", "the angle of the point (x, y) elementwise, in (-pi, pi]",
     "y = f32[2] constant({1, -1})\nx = f32[2] constant({-1, 0})\natan2(y, x)"},
    {O::kAtanh, "x", "", "inverse hyperbolic tangent elementwise (NaN outside [-1, 1])",
     "x = f32[3] constant({-0.5, 0, 0.75})\natanh(x)"},
    {O::kBatchNormGrad, "operand, scale, mean, variance, grad_output",
     "epsilon=FLOAT, feature_index=D",
     "gradients of batch normalization: (grad_operand, grad_scale, grad_offset)",
     "x = f32[2,2] constant({{1, 2}, {3, 5}})\ns = f32[2] constant({1, 1})\n"
     "m = f32[2] constant({2, 3.5})\nv = f32[2] constant({1, 2.25})\n"
     "(f32[2,2], f32[2], f32[2]) batch-norm-grad(x, s, m, v, x), epsilon=0.001, feature_index=1"},
    {O::kBatchNormInference, "operand, scale, offset, mean, variance",
     "epsilon=FLOAT, feature_index=D",
     "normalizes with the given mean and variance along feature_index",
     "x = f32[2,2] constant({{1, 2}, {3, 5}})\ns = f32[2] constant({1, 2})\n"
     "o = f32[2] constant({0, 1})\nm = f32[2] constant({2, 3.5})\nv = f32[2] constant({1, 2.25})\n"
     "batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1"},
    {O::kBatchNormTraining, "operand, scale, offset", "epsilon=FLOAT, feature_index=D",
     "normalizes over all dimensions but feature_index: (output, mean, variance)",
     "x = f32[2,2] constant({{1, 2}, {3, 5}})\ns = f32[2] constant({1, 1})\n"
     "o = f32[2] constant({0, 0})\n"
     "(f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1"},
    {O::kBitcast, "x", "", "the same bytes seen as another shape of as many bytes (write it)",
     "x = f32[2,2] constant({{1, 2}, {3, 4}})\nf32[4] bitcast(x)"},
    {O::kBitcastConvert, "x", "",
     "reinterprets the bits of each element as another type (write the result shape)",
     "x = f32[2] constant({1, -2})\ns32[2] bitcast-convert(x)"},
    {O::kBroadcast, "x", "dimensions={D,...}",
     "copies x into a larger shape; dimensions[i] is the result dimension of x's dimension i",
     "v = f32[3] constant({1, 2, 3})\nf32[2,3] broadcast(v), dimensions={1}"},
    {O::kCall, "args...", "to_apply=COMPUTATION", "calls a computation",
     "twice {\n  p = f32[3] parameter(0)\n  ROOT r = f32[3] add(p, p)\n}\n"
     "x = f32[3] constant({-1.5, 0.25, 2})\ncall(x), to_apply=twice"},
    {O::kCbrt, "x", "", "cube root elementwise", "x = f32[3] constant({-8, 1, 27})\ncbrt(x)"},
    {O::kCeil, "x", "", "rounds up elementwise", "x = f32[3] constant({-1.5, 0.25, 2})\nceil(x)"},
    {O::kCholesky, "a", "lower=true|false",
     "the Cholesky factor of a symmetric positive definite matrix (lower or upper)",
     "a = f32[2,2] constant({{4, 2}, {2, 3}})\ncholesky(a), lower=true"},
    {O::kClamp, "min, x, max", "", "min(max(x, min), max) elementwise (min, max may be scalars)",
     "x = f32[3] constant({-1.5, 0.25, 2})\nclamp(f32[] constant(0), x, f32[] constant(1))"},
    {O::kClz, "x", "", "count of leading zero bits of each integer",
     "x = s32[3] constant({12, -7, 255})\ncount-leading-zeros(x)"},
    {O::kCollectiveBroadcast, "x", "replica_groups={{R,...},...}",
     "every replica of a group gets the x of the group's first replica",
     ":replicas 2\nr = u32[] replica-id()\ncollective-broadcast(r), replica_groups={{1,0}}"},
    {O::kCollectivePermute, "x", "source_target_pairs={{S,T},...}",
     "sends x from each source replica to its target (replicas no one sends to get zeros)",
     ":replicas 2\nr = u32[] replica-id()\ncollective-permute(r), source_target_pairs={{0,1},{1,0}}"},
    {O::kCollectivePermuteDone, "started", "", "the result of a collective-permute-start",
     ":replicas 2\ncp {\n  x = u32[] parameter(0)\n  s = (u32[], u32[], u32[], u32[]) "
     "collective-permute-start(x), source_target_pairs={{0,1},{1,0}}\n"
     "  ROOT d = u32[] collective-permute-done(s)\n}\n:run cp u32[] 7"},
    {O::kCollectivePermuteStart, "x", "source_target_pairs={{S,T},...}",
     "starts a collective-permute for collective-permute-done",
     ":replicas 2\ncp {\n  x = u32[] parameter(0)\n  s = (u32[], u32[], u32[], u32[]) "
     "collective-permute-start(x), source_target_pairs={{0,1},{1,0}}\n"
     "  ROOT d = u32[] collective-permute-done(s)\n}\n:run cp u32[] 7"},
    {O::kCollectiveReduce, "x...", "replica_groups={{R,...},...}, to_apply=REDUCER",
     "reduces x across the replicas of each group",
     ":replicas 2\nx = f32[2] constant({1, 2})\ncollective-reduce(x), replica_groups={{0,1}}, "
     "to_apply=add",
     false},
    {O::kCompare, "x, y", "direction=EQ|NE|LT|LE|GT|GE, type=FLOAT|TOTALORDER|SIGNED|UNSIGNED",
     "pred result of comparing elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\ny = f32[3] constant({0, 0.25, 1})\n"
     "compare(x, y), direction=LT"},
    {O::kComplex, "re, im", "", "complex numbers from real and imaginary parts",
     "re = f32[2] constant({1, 2})\nim = f32[2] constant({0.5, -1})\ncomplex(re, im)"},
    {O::kConcatenate, "x...", "dimensions={D}", "joins the operands along dimension D",
     "x = f32[2] constant({1, 2})\ny = f32[3] constant({3, 4, 5})\n"
     "concatenate(x, y), dimensions={0}"},
    {O::kConditional, "selector, args...",
     "true_computation=C, false_computation=C (pred selector) | branch_computations={C,...} "
     "(s32 selector)",
     "runs one branch on its argument: by a pred, or by an index (out of range: the last)",
     "neg {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] negate(p)\n}\n"
     "same {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] copy(p)\n}\n"
     "x = f32[2] constant({1, 2})\n"
     "conditional(s32[] constant(0), x, x), branch_computations={neg, same}"},
    {O::kConstant, "", "", "a literal value (write its shape)",
     "f32[2,2] constant({{1, 2}, {3, 4}})"},
    {O::kConvert, "x", "", "converts each element to the result's type (write the result shape)",
     "x = f32[3] constant({-1.5, 0.25, 2})\ns32[3] convert(x)"},
    {O::kConvolution, "lhs, rhs",
     "window={size=KxK stride=SxS pad=LO_HIxLO_HI lhs_dilate=.. rhs_dilate=..}, "
     "dim_labels=b01f_01io->b01f, feature_group_count=N, batch_group_count=N",
     "N-d convolution (cross-correlation) of lhs with the kernel rhs",
     "x = f32[1,4,1] constant({{{1}, {2}, {3}, {4}}})\nk = f32[2,1,1] constant({{{1}}, {{-1}}})\n"
     "f32[1,3,1] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f"},
    {O::kCopy, "x", "", "x itself (possibly in another layout)",
     "x = f32[3] constant({-1.5, 0.25, 2})\ncopy(x)"},
    {O::kCopyDone, "started", "", "the copy a copy-start began",
     "cp {\n  x = f32[2] parameter(0)\n  s = (f32[2], f32[2], u32[]) copy-start(x)\n"
     "  ROOT d = f32[2] copy-done(s)\n}\n:run cp f32[2] {1, 2}"},
    {O::kCopyStart, "x", "", "starts a copy: (destination, source, context) for copy-done",
     "cp {\n  x = f32[2] parameter(0)\n  s = (f32[2], f32[2], u32[]) copy-start(x)\n"
     "  ROOT d = f32[2] copy-done(s)\n}\n:run cp f32[2] {1, 2}"},
    {O::kCos, "x", "", "cos(x) elementwise", "x = f32[3] constant({-1.5, 0.25, 2})\ncosine(x)"},
    {O::kCosh, "x", "", "hyperbolic cosine elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\ncosh(x)"},
    {O::kCustomCall, "args...",
     "custom_call_target=\"NAME\", backend_config=\"...\"|{...}, api_version=API_VERSION_...",
     "calls a target hlovm knows (check.expect_eq and friends, LAPACK routines, ...)",
     "x = f32[2] constant({1, 2})\n() custom-call(x, x), custom_call_target=\"check.expect_eq\", "
     "custom_call_has_side_effect=true"},
    {O::kDivide, "x, y", "", "x / y elementwise (integers round toward zero)",
     "x = s32[2] constant({7, -7})\ny = s32[2] constant({2, 2})\ndivide(x, y)"},
    {O::kDomain, "x", "domain={kind=\"sharding\", entry={...}, exit={...}}",
     "x unchanged; marks a sharding boundary",
     "x = f32[3] constant({-1.5, 0.25, 2})\ndomain(x), domain={kind=\"sharding\", "
     "entry={maximal device=0}, exit={maximal device=0}}"},
    {O::kDot, "lhs, rhs",
     "lhs_contracting_dims={D,...}, rhs_contracting_dims={D,...}, lhs_batch_dims={D,...}, "
     "rhs_batch_dims={D,...}",
     "generalized matrix product: batch dims, then lhs free, then rhs free dims",
     "a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\nb = f32[3] constant({1, 0, -1})\n"
     "dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
    {O::kDynamicReshape, "x, sizes...", "",
     "reshapes x into a dynamic shape whose sizes are given at run time",
     "dr {\n  p = s32[6] parameter(0)\n  a = s32[] constant(2)\n  b = s32[] constant(3)\n"
     "  ROOT r = s32[<=2,<=3] dynamic-reshape(p, a, b)\n}\n:run dr s32[6] {1, 2, 3, 4, 5, 6}"},
    {O::kDynamicSlice, "x, starts...", "dynamic_slice_sizes={N,...}",
     "a slice at start indices given at run time (clamped to stay inside x)",
     "x = f32[4] constant({1, 2, 3, 4})\n"
     "f32[2] dynamic-slice(x, s32[] constant(3)), dynamic_slice_sizes={2}"},
    {O::kDynamicUpdateSlice, "x, update, starts...", "",
     "x with update written at start indices given at run time (clamped)",
     "x = f32[4] constant({1, 2, 3, 4})\nu = f32[2] constant({0, 0})\n"
     "dynamic-update-slice(x, u, s32[] constant(1))"},
    {O::kErf, "x", "", "the error function elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\nerf(x)"},
    {O::kExp, "x", "", "e^x elementwise", "x = f32[3] constant({-1.5, 0.25, 2})\nexponential(x)"},
    {O::kExpm1, "x", "", "e^x - 1 elementwise, exact near 0",
     "x = f32[3] constant({-1.5, 1e-7, 2})\nexponential-minus-one(x)"},
    {O::kFft, "x", "fft_type=FFT|IFFT|RFFT|IRFFT, fft_length={N,...}",
     "fast Fourier transform over the last len(fft_length) dimensions",
     "x = f32[4] constant({1, 2, 3, 4})\nc64[3] fft(x), fft_type=RFFT, fft_length={4}"},
    {O::kFloor, "x", "", "rounds down elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\nfloor(x)"},
    {O::kFusion, "args...", "kind=kLoop|kInput|kOutput|kCustom, calls=COMPUTATION",
     "runs a fused computation on the args (as a call)",
     "fused {\n  p = f32[3] parameter(0)\n  ROOT n = f32[3] negate(p)\n}\n"
     "x = f32[3] constant({-1.5, 0.25, 2})\nfusion(x), kind=kLoop, calls=fused"},
    {O::kGather, "x, indices",
     "offset_dims={D,...}, collapsed_slice_dims={D,...}, start_index_map={D,...}, "
     "index_vector_dim=D, slice_sizes={N,...}",
     "collects the slices of x that start at the indices",
     "x = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})\ni = s32[2] constant({2, 0})\n"
     "f32[2,2] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
     "index_vector_dim=1, slice_sizes={1,2}"},
    {O::kGetDimensionSize, "x", "dimensions={D}", "the size of dimension D at run time (s32[])",
     "x = f32[3] constant({-1.5, 0.25, 2})\ns32[] get-dimension-size(x), dimensions={0}"},
    {O::kGetTupleElement, "t", "index=N", "element N of tuple t",
     "x = f32[2] constant({1, 2})\nt = tuple(x, f32[] constant(3))\n"
     "get-tuple-element(t), index=1"},
    {O::kImag, "z", "", "the imaginary part elementwise",
     "z = c64[2] constant({(1, 2), (3, -4)})\nimag(z)"},
    {O::kInfeed, "token", "infeed_config=\"...\"",
     "(the next value of the infeed queue, a token); :infeed VALUE queues one",
     ":infeed f32[2] {1, 2}\n(f32[2], token[]) infeed(token[] after-all())"},
    {O::kIota, "", "iota_dimension=D",
     "0, 1, 2, ... along dimension D (write the result shape)",
     "s32[2,3] iota(), iota_dimension=1"},
    {O::kIsFinite, "x", "", "pred: x is neither Inf nor NaN",
     "x = f32[3] constant({1, inf, nan})\nis-finite(x)"},
    {O::kLog, "x", "", "natural logarithm elementwise",
     "x = f32[3] constant({0.5, 1, 2})\nlog(x)"},
    {O::kLog1p, "x", "", "log(1 + x) elementwise, exact near 0",
     "x = f32[3] constant({-0.5, 1e-7, 2})\nlog-plus-one(x)"},
    {O::kLogistic, "x", "", "1 / (1 + e^-x) elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\nlogistic(x)"},
    {O::kMap, "x...", "dimensions={D,...}, to_apply=COMPUTATION",
     "applies a scalar computation elementwise to the operands",
     "x = f32[3] constant({-1.5, 0.25, 2})\nmap(x, x), dimensions={0}, to_apply=max"},
    {O::kMaximum, "x, y", "", "max(x, y) elementwise (NaN wins)",
     "x = f32[3] constant({-1.5, 0.25, 2})\nmaximum(x, f32[3] constant({0, 0, 0}))"},
    {O::kMinimum, "x, y", "", "min(x, y) elementwise (NaN wins)",
     "x = f32[3] constant({-1.5, 0.25, 2})\nminimum(x, f32[3] constant({0, 0, 0}))"},
    {O::kMulhi, "x, y", "", "the high half of the double-width product of integers",
     "x = u32[2] constant({4000000000, 7})\nmulhi(x, x)"},
    {O::kMultiply, "x, y", "", "x * y elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\nmultiply(x, x)"},
    {O::kNegate, "x", "", "-x elementwise", "x = f32[3] constant({-1.5, 0.25, 2})\nnegate(x)"},
    {O::kNot, "x", "", "bitwise not (logical for pred)",
     "p = pred[2] constant({true, false})\nnot(p)"},
    {O::kOptimizationBarrier, "x", "",
     "x unchanged; nothing is moved across it (usually a tuple)",
     "x = f32[3] constant({-1.5, 0.25, 2})\nopt-barrier(x)"},
    {O::kOr, "x, y", "", "bitwise or (logical for pred) elementwise",
     "x = s32[2] constant({12, 10})\ny = s32[2] constant({10, 6})\nor(x, y)"},
    {O::kOutfeed, "x, token", "outfeed_shape=SHAPE",
     "appends x to the outfeed (printed after the run); a token",
     "x = f32[2] constant({1, 2})\noutfeed(x, token[] after-all()), outfeed_shape=f32[2]"},
    {O::kPad, "x, value", "padding=LO_HI[_INTERIOR]x... (one per dimension; negative trims)",
     "pads each dimension at both ends and between elements",
     "x = f32[3] constant({-1.5, 0.25, 2})\npad(x, f32[] constant(0)), padding=1_2_1"},
    {O::kParameter, "N", "", "the N-th argument of a computation",
     "ident {\n  ROOT p = f32[3] parameter(0)\n}\n"
     "x = f32[3] constant({-1.5, 0.25, 2})\ncall(x), to_apply=ident"},
    {O::kPartitionId, "", "", "this instance's partition number (u32[])",
     ":replicas 1 2\npartition-id()"},
    {O::kPopulationCount, "x", "", "count of set bits of each integer",
     "x = s32[3] constant({12, -7, 255})\npopcnt(x)"},
    {O::kPower, "x, y", "", "x^y elementwise",
     "x = f32[2] constant({2, 9})\ny = f32[2] constant({10, 0.5})\npower(x, y)"},
    {O::kRaggedAllToAll,
     "input, output, input_offsets, send_sizes, output_offsets, recv_sizes",
     "replica_groups={{R,...},...}",
     "all-to-all of ragged pieces: each replica sends rows at its offsets and sizes",
     ":replicas 2\nra {\n  in = s32[4] parameter(0)\n  out = s32[4] constant({-1, -1, -1, -1})\n"
     "  io = s32[2] constant({0, 2})\n  ss = s32[2] constant({2, 2})\n"
     "  oo = s32[2] constant({0, 0})\n  rs = s32[2] constant({2, 2})\n"
     "  ROOT r = s32[4] ragged-all-to-all(in, out, io, ss, oo, rs), replica_groups={{0,1}}\n}\n"
     ":run ra s32[4] {1, 2, 3, 4}"},
    {O::kRaggedDot, "lhs, rhs, group_sizes",
     "lhs_contracting_dims={D}, rhs_contracting_dims={D}, lhs_ragged_dims={D}, "
     "rhs_group_dims={D}",
     "a dot whose lhs rows come in groups, each with its own rhs matrix",
     "a = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})\n"
     "b = f32[2,2,1] constant({{{1}, {0}}, {{0}, {1}}})\ng = s64[2] constant({1, 2})\n"
     "f32[3,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
     "lhs_ragged_dims={0}, rhs_group_dims={0}"},
    {O::kReal, "z", "", "the real part elementwise",
     "z = c64[2] constant({(1, 2), (3, -4)})\nreal(z)"},
    {O::kRecv, "token", "channel_id=N, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{S,T},...}\"}",
     "receives what the matching send (same channel_id) sent: (data, context, token)",
     ":replicas 2\nsr {\n  x = s32[2] parameter(0)\n  t = token[] after-all()\n"
     "  s = (s32[2], u32[], token[]) send(x, t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  r = (s32[2], u32[], token[]) recv(t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  sd = token[] send-done(s), channel_id=1\n"
     "  rd = (s32[2], token[]) recv-done(r), channel_id=1\n"
     "  ROOT v = s32[2] get-tuple-element(rd), index=0\n}\n:run sr s32[2] {1, 2}"},
    {O::kRecvDone, "received", "channel_id=N", "(data, token) of a recv",
     ":replicas 2\nsr {\n  x = s32[2] parameter(0)\n  t = token[] after-all()\n"
     "  s = (s32[2], u32[], token[]) send(x, t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  r = (s32[2], u32[], token[]) recv(t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  sd = token[] send-done(s), channel_id=1\n"
     "  rd = (s32[2], token[]) recv-done(r), channel_id=1\n"
     "  ROOT v = s32[2] get-tuple-element(rd), index=0\n}\n:run sr s32[2] {1, 2}"},
    {O::kReduce, "x..., init...", "dimensions={D,...}, to_apply=REDUCER",
     "folds x over the dimensions with the reducer, starting from init",
     "x = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"
     "reduce(x, f32[] constant(0)), dimensions={1}, to_apply=add"},
    {O::kReducePrecision, "x", "exponent_bits=N, mantissa_bits=N",
     "rounds floats to a narrower format, keeping the type",
     "x = f32[2] constant({1.00001, 70000})\nreduce-precision(x), exponent_bits=5, mantissa_bits=10"},
    {O::kReduceScatter, "x...", "dimensions={D}, replica_groups={{R,...},...}, to_apply=REDUCER",
     "all-reduce, then each replica keeps its piece along D",
     ":replicas 2\nx = f32[2] constant({1, 2})\nf32[1] reduce-scatter(x), dimensions={0}, "
     "replica_groups={{0,1}}, to_apply=add"},
    {O::kReduceWindow, "x..., init...",
     "window={size=K stride=S pad=LO_HI ...} (one x-separated value per dimension), "
     "to_apply=REDUCER",
     "folds each window of x (pooling)",
     "x = f32[4] constant({1, 2, 3, 4})\n"
     "reduce-window(x, f32[] constant(0)), window={size=2}, to_apply=add"},
    {O::kRemainder, "x, y", "", "x - trunc(x / y) * y elementwise (the sign of x)",
     "x = f32[2] constant({7, -7})\ny = f32[2] constant({3, 3})\nremainder(x, y)"},
    {O::kReplicaId, "", "", "this instance's replica number (u32[])",
     ":replicas 2\nreplica-id()"},
    {O::kReshape, "x", "", "the same elements, row-major, in another shape (write it)",
     "x = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\nf32[3,2] reshape(x)"},
    {O::kReverse, "x", "dimensions={D,...}", "reverses the order along the dimensions",
     "x = f32[3] constant({-1.5, 0.25, 2})\nreverse(x), dimensions={0}"},
    {O::kRng, "a, b", "distribution=rng_uniform|rng_normal",
     "random numbers: uniform in [a, b), or normal with mean a and deviation b (write the shape)",
     "f32[3] rng(f32[] constant(0), f32[] constant(1)), distribution=rng_uniform"},
    {O::kRngBitGenerator, "state", "algorithm=rng_default|rng_three_fry|rng_philox",
     "random bits and the next state: (state, bits) (write the shapes)",
     "(u64[2], u32[4]) rng-bit-generator(u64[2] constant({1, 2})), algorithm=rng_three_fry"},
    {O::kRngGetAndUpdateState, "", "delta=N",
     "the generator state (u64[2]), then advances it by delta",
     "u64[2] rng-get-and-update-state(), delta=5"},
    {O::kRoundNearestAfz, "x", "", "rounds to the nearest integer, ties away from zero",
     "x = f32[3] constant({-2.5, 0.5, 1.5})\nround-nearest-afz(x)"},
    {O::kRoundNearestEven, "x", "", "rounds to the nearest integer, ties to even",
     "x = f32[3] constant({-2.5, 0.5, 1.5})\nround-nearest-even(x)"},
    {O::kRsqrt, "x", "", "1 / sqrt(x) elementwise", "x = f32[3] constant({0.25, 1, 4})\nrsqrt(x)"},
    {O::kScaledDot, "lhs, rhs, lhs_scale, rhs_scale",
     "lhs_contracting_dims={D}, rhs_contracting_dims={D} (as dot)",
     "a dot of block-scaled operands: each block of the contracting dimension times its scale",
     "a = f32[1,4] constant({{1, 2, 3, 4}})\nb = f32[4,1] constant({{1}, {1}, {1}, {1}})\n"
     "sa = f32[1,2] constant({{1, 10}})\nsb = f32[2,1] constant({{1}, {1}})\n"
     "f32[1,1] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
    {O::kScan, "inputs..., inits...",
     "dimensions={D}, num_carries=N, is_reverse=true|false, to_apply=COMPUTATION",
     "runs the computation along D, carrying N values: (outputs..., final carries...)",
     "body {\n  x = s32[] parameter(0)\n  c = s32[] parameter(1)\n  s = s32[] add(x, c)\n"
     "  ROOT t = (s32[], s32[]) tuple(s, s)\n}\n"
     "in = s32[4] constant({1, 2, 3, 4})\n"
     "(s32[4], s32[]) scan(in, s32[] constant(0)), dimensions={0}, num_carries=1, to_apply=body"},
    {O::kScatter, "x..., indices, updates...",
     "update_window_dims={D,...}, inserted_window_dims={D,...}, "
     "scatter_dims_to_operand_dims={D,...}, index_vector_dim=D, to_apply=REDUCER",
     "combines the updates into x at the indices with the reducer",
     "x = f32[3] constant({1, 2, 3})\ni = s32[2] constant({0, 2})\nu = f32[2] constant({10, 20})\n"
     "scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, "
     "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add"},
    {O::kSelect, "pred, on_true, on_false", "", "on_true where pred holds, else on_false",
     "p = pred[2] constant({true, false})\nx = f32[2] constant({1, 2})\n"
     "select(p, x, f32[2] constant({-1, -2}))"},
    {O::kSelectAndScatter, "x, source, init",
     "window={size=K stride=S ...}, select=COMPARATOR, scatter=REDUCER",
     "adds each source value to the element its window selects (max-pool gradient)",
     "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
     "  ROOT c = pred[] compare(a, b), direction=GE\n}\n"
     "x = f32[4] constant({1, 3, 4, 2})\ns = f32[2] constant({10, 20})\n"
     "select-and-scatter(x, s, f32[] constant(0)), window={size=2 stride=2}, select=ge, "
     "scatter=add"},
    {O::kSend, "x, token",
     "channel_id=N, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{S,T},...}\"}",
     "sends x to the matching recv (same channel_id): (data, context, token)",
     ":replicas 2\nsr {\n  x = s32[2] parameter(0)\n  t = token[] after-all()\n"
     "  s = (s32[2], u32[], token[]) send(x, t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  r = (s32[2], u32[], token[]) recv(t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  sd = token[] send-done(s), channel_id=1\n"
     "  rd = (s32[2], token[]) recv-done(r), channel_id=1\n"
     "  ROOT v = s32[2] get-tuple-element(rd), index=0\n}\n:run sr s32[2] {1, 2}"},
    {O::kSendDone, "sent", "channel_id=N", "a token once a send is done",
     ":replicas 2\nsr {\n  x = s32[2] parameter(0)\n  t = token[] after-all()\n"
     "  s = (s32[2], u32[], token[]) send(x, t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  r = (s32[2], u32[], token[]) recv(t), channel_id=1, "
     "frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
     "  sd = token[] send-done(s), channel_id=1\n"
     "  rd = (s32[2], token[]) recv-done(r), channel_id=1\n"
     "  ROOT v = s32[2] get-tuple-element(rd), index=0\n}\n:run sr s32[2] {1, 2}"},
    {O::kSetDimensionSize, "x, size", "dimensions={D}",
     "x with dimension D's run-time size set (the result has a bounded dimension)",
     "x = f32[3] constant({-1.5, 0.25, 2})\n"
     "f32[<=3] set-dimension-size(x, s32[] constant(2)), dimensions={0}"},
    {O::kShiftLeft, "x, n", "", "x << n elementwise (0 when n is out of range)",
     "x = s32[3] constant({12, -7, 255})\nshift-left(x, s32[3] constant({1, 2, 40}))"},
    {O::kShiftRightArithmetic, "x, n", "", "x >> n filling with the sign bit",
     "x = s32[3] constant({12, -7, 255})\nshift-right-arithmetic(x, s32[3] constant({1, 1, 4}))"},
    {O::kShiftRightLogical, "x, n", "", "x >> n filling with zeros",
     "x = s32[3] constant({12, -7, 255})\nshift-right-logical(x, s32[3] constant({1, 1, 4}))"},
    {O::kShuffle, "x", "", "a permutation of x's elements",
     "x = f32[2,2] constant({{1, 2}, {3, 4}})\nf32[2,2] shuffle(x)", false},
    {O::kSign, "x", "", "-1, 0 or 1 elementwise (NaN stays NaN)",
     "x = f32[3] constant({-1.5, 0, 2})\nsign(x)"},
    {O::kSin, "x", "", "sin(x) elementwise", "x = f32[3] constant({-1.5, 0.25, 2})\nsine(x)"},
    {O::kSinh, "x", "", "hyperbolic sine elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\nsinh(x)"},
    {O::kSlice, "x", "slice={[START:LIMIT:STRIDE], ...} (one per dimension; :STRIDE optional)",
     "a strided box of x", "x = f32[4] constant({1, 2, 3, 4})\nslice(x), slice={[1:4:2]}"},
    {O::kSort, "x...", "dimensions={D}, is_stable=true|false, to_apply=COMPARATOR",
     "sorts along D by the comparator (which sees an element of every operand)",
     "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
     "  ROOT c = pred[] compare(a, b), direction=LT\n}\n"
     "x = f32[3] constant({2, -1.5, 0.25})\nsort(x), dimensions={0}, to_apply=lt"},
    {O::kSqrt, "x", "", "square root elementwise", "x = f32[3] constant({0.25, 1, 2})\nsqrt(x)"},
    {O::kStochasticConvert, "x, random_bits", "",
     "converts to a narrower type, rounding up with a probability given by the bits",
     "x = f32[2] constant({1.5, -2.25})\n"
     "s32[2] stochastic-convert(x, u32[2] constant({0, 4000000000}))"},
    {O::kSubtract, "x, y", "", "x - y elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\nsubtract(x, f32[3] constant({1, 1, 1}))"},
    {O::kTan, "x", "", "tan(x) elementwise", "x = f32[3] constant({-1.5, 0.25, 2})\ntan(x)"},
    {O::kTanh, "x", "", "hyperbolic tangent elementwise",
     "x = f32[3] constant({-1.5, 0.25, 2})\ntanh(x)"},
    {O::kTopK, "x", "k=N, largest=true|false",
     "the k largest (or smallest) values of the last dimension and their indices",
     "x = f32[4] constant({3, 1, 4, 1.5})\ntopk(x), k=2, largest=true"},
    {O::kTranspose, "x", "dimensions={D,...}",
     "permutes dimensions: result dimension i is x's dimension dimensions[i]",
     "x = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\ntranspose(x), dimensions={1,0}"},
    {O::kTriangularSolve, "a, b",
     "left_side=true|false, lower=true|false, unit_diagonal=true|false, "
     "transpose_a=NO_TRANSPOSE|TRANSPOSE|ADJOINT",
     "solves op(a) x = b (left side) or x op(a) = b for triangular a",
     "a = f32[2,2] constant({{2, 0}, {1, 4}})\nb = f32[2,1] constant({{2}, {9}})\n"
     "triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE"},
    {O::kTuple, "x...", "", "groups values into a tuple",
     "x = f32[2] constant({1, 2})\ntuple(x, s32[] constant(3))"},
    {O::kWhile, "init", "condition=COMPUTATION, body=COMPUTATION",
     "runs body on the loop state while condition (pred[]) holds on it",
     "small {\n  p = s32[] parameter(0)\n  ROOT lt = pred[] compare(p, s32[] constant(100)), "
     "direction=LT\n}\n"
     "double {\n  p = s32[] parameter(0)\n  ROOT d = s32[] add(p, p)\n}\n"
     "while(s32[] constant(1)), condition=small, body=double"},
    {O::kXor, "x, y", "", "bitwise exclusive or (logical for pred) elementwise",
     "x = s32[2] constant({12, 10})\ny = s32[2] constant({10, 6})\nxor(x, y)"},
};


// The table lists every opcode once, in the order of the opcode list.
constexpr bool TableFollowsTheOpcodeList() {
  if (std::size(kOps) != static_cast<size_t>(HloOpcodeCount())) return false;
  for (size_t i = 0; i < std::size(kOps); ++i) {
    if (kOps[i].opcode != static_cast<HloOpcode>(i)) return false;
  }
  return true;
}
static_assert(TableFollowsTheOpcodeList(),
              "kOps needs one entry per opcode of core/hlo_opcode.h, in its order");

}  // namespace

absl::Span<const OpHelp> OpHelpEntries() { return kOps; }

const OpHelp& FindOpHelp(HloOpcode opcode) { return kOps[static_cast<size_t>(opcode)]; }

std::string Session::OpcodeHelp(absl::string_view opcode) {
  if (!opcode.empty() && opcode[0] == '%') opcode.remove_prefix(1);
  std::optional<HloOpcode> known = HloOpcodeFromName(std::string(opcode));
  if (!known.has_value()) return "";
  const OpHelp& op = FindOpHelp(*known);
  std::string text = absl::StrCat(std::string(HloOpcodeName(*known)), "(", op.operands, ")");
  if (!op.attributes.empty()) absl::StrAppend(&text, ", ", op.attributes);
  absl::StrAppend(&text, "\n  ", op.meaning);
  if (!op.implemented) absl::StrAppend(&text, "\n  (hlovm does not run it yet)");
  absl::StrAppend(&text, "\nexample:");
  for (absl::string_view line : absl::StrSplit(op.example, '\n')) {
    absl::StrAppend(&text, "\n  ", line);
  }
  return text;
}

}  // namespace repl
}  // namespace hlovm
