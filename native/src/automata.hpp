// Byte automata for terminals: serialised IR expression -> Thompson NFA -> minimal DFA.
//
// A faithful port of typedgen/compiler/automata.py (the reference): the same constructions in
// the same order, so the DFAs are equal array for array, not merely equivalent. That makes the
// differential test a plain comparison and keeps every state budget where Python has it.
#pragma once

#include <vector>

#include "common.hpp"

namespace tg {

struct Dfa {
    i32 n = 0;                // states; 0 is the start
    std::vector<i32> trans;   // n x 256, -1 is dead
    std::vector<u8> accept;   // n

    i32 at(i32 q, int b) const { return trans[static_cast<std::size_t>(q) * 256 + b]; }
    bool accepts_empty() const { return n > 0 && accept[0]; }
};

// Node opcodes of the serialised expression (prefix order; see typedgen/compiler/_native_ir.py).
enum Op : i32 {
    OP_LIT = 0,         // n, b0..b(n-1)
    OP_CLASS = 1,       // k, lo0, hi0, ... (positive, surrogate-free code point ranges)
    OP_SEQ = 2,         // k, children
    OP_ALT = 3,         // k, children
    OP_REPEAT = 4,      // min, max (-1: unbounded), child
    OP_REF = 5,         // index into the resolved DFAs
    OP_INTERSECT = 6,   // k, children
    OP_COMPLEMENT = 7,  // child
};

// Build the minimal DFA of the expression in `prog` (node 0 at offset 0). `refs` are the
// DFAs of referenced terminals. Throws BudgetError (with the node index) when a state
// budget runs out, InputError on a malformed program.
Dfa expr_to_dfa(const std::vector<i32>& prog, const std::vector<Dfa>& refs, i32 budget);

// The minimal DFA of all valid UTF-8 text (built once).
const Dfa& utf8_text_dfa();

Dfa trimmed(const Dfa& d);
Dfa minimized(const Dfa& d);

}  // namespace tg
