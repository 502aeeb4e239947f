#include "vm/lowering.h"
namespace hlovm { namespace vm {
void RegisterNormLowerings(LoweringTable& table) { (void)table; }
} }
