// Token tables: what every token does when read from one lexer state (a port of the model in
// typedgen/compiler/tokentables.py). A table lists *paths* (sequences of lexer events a token's
// bytes cross) and *groups* (tokens with the same path and the same alive terminals at their
// end). At run time the engine steps the parser once per path and keeps the groups whose end
// terminals the parser expects. Built by one depth-first walk of the trie; subtrees that a
// quiet free-text state reads without anything to decide (the inside of a string, a comment, a
// bounded run) are recorded as one range of tokens without being visited.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "lexer.hpp"
#include "vocab.hpp"

namespace tg {

struct Delegate {
    i32 event;
    i32 fresh;
    u64 first[4];  // first bytes (a 256-bit set)
};

struct LexTable {
    i32 state = 0;
    std::vector<i32> path_parent{-1}, path_event{-1};  // path 0: no boundary crossed
    std::vector<i32> group_path, group_alive;
    std::vector<i32> group_start;  // sparse groups: tokens[group_start[g] .. group_start[g+1])
    std::vector<i32> tokens;
    std::vector<i32> group_dense;  // index of the dense row, or -1
    std::vector<u32> dense;        // dense rows of n_words
    std::vector<Delegate> delegates;
    std::size_t bytes = 0;
    i32 n_groups() const { return static_cast<i32>(group_path.size()); }
};

struct Quiet {
    bool quiet = false;
    u64 lo = 0, hi = 0;       // quiet ASCII bytes
    bool loop = false;        // the state reads them back into itself
    bool utf8 = false;        // loops only: well-formed non-ASCII text is quiet too
    i32 max_len = 0;          // chains only: how many quiet bytes the state can still take
};

class TableBuilder {
  public:
    TableBuilder(Lexer& lexer, BitPool& bits, const Vocab& vocab, i64 walk_budget)
        : lexer_(lexer), bits_(bits), vocab_(vocab), walk_budget_(walk_budget) {}

    // Throws BudgetError("token-table-budget") when the walk exceeds its budget.
    std::shared_ptr<const LexTable> build(i32 state);
    const Quiet& quiet(i32 state);
    void set_walk_budget(i64 budget) { walk_budget_ = budget; }
    u64 steps = 0, entries = 0, paths = 0;

  private:
    bool no_boundary(i32 state, int byte);
    bool utf8_loops(i32 state);
    // Impure sums for the quiet state `lex` (null when it is not quiet).
    const std::vector<i32>* sums(i32 lex);

    Lexer& lexer_;
    BitPool& bits_;
    const Vocab& vocab_;
    i64 walk_budget_;
    std::vector<i8> quiet_done_;
    std::vector<Quiet> quiet_;
    std::vector<std::shared_ptr<const std::vector<i32>>> sums_;
};

}  // namespace tg
