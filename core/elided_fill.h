// Fills the values of elided array constants (`constant({...})`), whose text
// leaves the values out (XLA prints `{...}` for constants of more than ten
// elements).
//
// ElidedFiller::FillLikeXla reproduces what XLA's HLO parser does by default, so that
// a module with elided constants gives the same bits in hlovm as in an XLA
// replay of the same dump (run_hlo_module, hlo-opt, ...):
//   * the constant's row-major bytes are viewed as uint32 words; word i gets
//     the next value of a uint32 counter (which starts at 0 and is shared by
//     every elided constant filled, in the order they are filled: text
//     order when the loader fills them as it parses);
//   * for `pred` every word is masked with 0x01010101 so each bool is 0 or 1;
//   * the size % 4 trailing bytes take values of a second, uint8 counter;
//     XLA writes them at byte offset size/4 + i (not size/4*4 + i), and this
//     function does the same, byte for byte;
//   * the bytes are then moved to the literal's own layout (XLA fills in the
//     default layout and relays the literal afterwards).
// Sub-byte types (s2, s4, u2, u4, f4e2m1fn, f6*) are kept to their valid low
// bits afterwards, as hlovm holds one such element per byte in the low bits.
//
// FillElidedWithZeros gives XLA's behaviour when the fill option is off.
//
// In XLA the two counters are process-wide, so a constant's values depend on
// every module the process parsed before. Here they belong to an ElidedFiller,
// and the loader makes one per module: a module's values are those of a fresh
// XLA process loading the same text, whatever this process loaded before,
// and modules can be loaded on several threads at once.
//
// The VM's loader fills every constant whose literal has elided() set,
// according to CompileOptions::elided.
#ifndef HLOVM_CORE_ELIDED_FILL_H_
#define HLOVM_CORE_ELIDED_FILL_H_

#include <cstdint>

#include "core/literal.h"

namespace hlovm {

// XLA's two fill counters, starting where a fresh process's start. Not
// thread-safe: one filler serves the constants of one module, in order.
class ElidedFiller {
 public:
  // Fills the array literal `literal` (allocated, of its final shape and
  // layout) with XLA's counter pattern and advances the counters. Tuples are
  // filled element by element; tokens and empty arrays are left as they are
  // (an empty array consumes no counter values).
  void FillLikeXla(Literal* literal);

  // The counters' current values (the next word / next tail byte).
  uint32_t word_counter() const { return word_; }
  uint8_t byte_counter() const { return byte_; }

 private:
  void FillArray(Literal* literal);

  uint32_t word_ = 0;
  uint8_t byte_ = 0;
};

// Sets every byte of the array literal (or of each tuple element) to zero.
void FillElidedWithZeros(Literal* literal);

}  // namespace hlovm

#endif  // HLOVM_CORE_ELIDED_FILL_H_
