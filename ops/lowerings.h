// Each op family's registration of its lowerings into the compiler's table
// (vm/lowering.h LoweringTable): one function per family, defined in that
// family's ops/<family>/*_lower.cc. vm/compiler.cc calls each once to fill
// the one table; a new op of an existing family registers itself in its
// family's function, a new family adds its function here and there.
#ifndef HLOVM_OPS_LOWERINGS_H_
#define HLOVM_OPS_LOWERINGS_H_

#include "vm/lowering.h"

namespace hlovm {
namespace vm {

void RegisterControlLowerings(LoweringTable& table);      // ops/control/
void RegisterElementwiseLowerings(LoweringTable& table);  // ops/elementwise/
void RegisterShapeLowerings(LoweringTable& table);        // ops/shape/shape_lower.cc
void RegisterShapeOpLowerings(LoweringTable& table);      // ops/shape/shape_ops_lower.cc
void RegisterIndexingLowerings(LoweringTable& table);     // ops/indexing/
void RegisterSortLowerings(LoweringTable& table);         // ops/sort/
void RegisterReduceLowerings(LoweringTable& table);       // ops/reduce/
void RegisterDotLowerings(LoweringTable& table);          // ops/dot/dot_lower.cc
void RegisterConvLowerings(LoweringTable& table);         // ops/dot/conv_lower.cc
void RegisterCustomCallLowering(LoweringTable& table);    // ops/custom/
void RegisterFftLowerings(LoweringTable& table);          // ops/fft/
void RegisterNormLowerings(LoweringTable& table);         // ops/norm/
void RegisterCollectiveLowerings(LoweringTable& table);   // ops/collective/
void RegisterRngLowerings(LoweringTable& table);          // ops/rng/
void RegisterLinalgLowerings(LoweringTable& table);       // ops/linalg/

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_OPS_LOWERINGS_H_
