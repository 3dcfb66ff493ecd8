// The lowered grammar as the native core receives it: terminal DFAs with their lexing modes,
// BNF productions over terminal and nonterminal ids, FOLLOW/FIRST bitsets and ignored
// terminals. Built by the bindings from typedgen.compiler.lowering.ParserGrammar and checked
// there (every id in range), so the engine can index freely.
#pragma once

#include <vector>

#include "automata.hpp"
#include "common.hpp"

namespace tg {

enum Lexing : i32 { LEX_FREE = 0, LEX_BASIC = 1, LEX_CONTEXTUAL = 2 };

struct TerminalSpec {
    Dfa dfa;
    i32 lexing = LEX_CONTEXTUAL;
    i64 priority = 0;
    bool literal = false;
};

struct GrammarSpec {
    std::vector<TerminalSpec> terms;
    i32 n_nonterminals = 0;
    std::vector<i32> prod_lhs;
    std::vector<std::vector<i32>> prod_rhs;
    i32 start = 0;                       // augmented start nonterminal (symbol id)
    std::vector<i32> ignore;             // terminal ids
    std::vector<std::vector<u64>> follow;  // per terminal, width words
    std::vector<u64> first;              // width words
    std::size_t width = 1;               // 64-bit words per terminal bitset

    i32 n_terms() const { return static_cast<i32>(terms.size()); }

    // Throws InputError if an id is out of range or a DFA is malformed.
    void validate() const;
};

}  // namespace tg
