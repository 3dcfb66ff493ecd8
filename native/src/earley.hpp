// Earley recognition over lexemes with hash-consed item sets: a port of
// typedgen/runtime/earley.py (see its docstring). A set is its kernel (items whose origin is
// another interned set) plus the nonterminals it predicts; goto, merge and step are memoised.
#pragma once

#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "grammar.hpp"
#include "lexer.hpp"

namespace tg {

class ParseTable {
  public:
    struct Item {
        i32 it, org;
        bool operator<(const Item& o) const { return it != o.it ? it < o.it : org < o.org; }
        bool operator==(const Item& o) const { return it == o.it && org == o.org; }
    };

    ParseTable(const GrammarSpec& g, BitPool& bits, Lexer& lexer);

    i32 initial() const { return initial_; }
    i32 exp(i32 sid) const { return sets_[static_cast<std::size_t>(sid)].exp; }
    bool accepting(i32 sid) const { return sets_[static_cast<std::size_t>(sid)].accepting; }
    i32 goto_(i32 sid, i32 term);
    i32 merge(std::vector<i32> ids);
    i32 step(i32 sid, i32 event);
    i32 size() const { return static_cast<i32>(sets_.size()); }
    std::size_t bytes() const { return bytes_; }

    // Read-only views for the completion search (completion.cpp).
    const std::vector<i32>& item_next() const { return item_next_; }
    const std::vector<i32>& item_lhs() const { return item_lhs_; }
    const std::vector<Item>& kernel(i32 sid) const { return sets_[static_cast<std::size_t>(sid)].kernel; }
    i32 local_id(i32 sid) const { return sets_[static_cast<std::size_t>(sid)].local; }
    // (awaited symbol, item) pairs of a predicted part, sorted by symbol.
    const std::vector<std::pair<i32, i32>>& local_waiting(i32 local) const {
        return locals_[static_cast<std::size_t>(local)].waiting;
    }

  private:
    struct Local {
        std::vector<std::pair<i32, i32>> waiting;  // (symbol, item), sorted
        i32 exp = 0;
        bool final = false;
    };
    struct Set {
        std::vector<Item> kernel;    // sorted
        std::vector<i32> predicted;  // sorted
        i32 local = 0;
        std::vector<std::pair<i32, Item>> kernel_waiting;  // (symbol, item), sorted
        i32 exp = 0;
        bool accepting = false;
    };
    struct Prediction {
        std::vector<i32> items, nts;  // sorted
    };

    const Prediction& prediction(i32 nt);
    i32 local_of(const std::vector<i32>& predicted);
    void waiting(i32 sid, i32 sym, std::vector<Item>& out) const;
    void closure(std::vector<Item> seeds, std::vector<Item>& kernel, std::vector<i32>& predicted);
    i32 intern(std::vector<Item>&& kernel, std::vector<i32>&& predicted);

    const GrammarSpec& g_;
    BitPool& bits_;
    Lexer& lexer_;
    i32 n_terms_;
    std::size_t w_;
    std::vector<i32> item_next_, item_lhs_;
    std::vector<std::vector<i32>> first_;  // per nonterminal (index sym - n_terms)
    i32 final_item_ = -1;
    std::vector<u8> nullable_;
    std::vector<u8> is_ignore_;
    i32 ignore_bits_ = 0;
    std::unordered_map<i32, Prediction> pred_;
    std::vector<Local> locals_;
    std::unordered_map<std::vector<i32>, i32, VecHash> local_index_;
    std::vector<Set> sets_;
    std::unordered_map<u64, std::vector<i32>, U64Hash> index_;  // hash -> candidate set ids
    FlatMap goto_memo_, step_memo_;
    std::unordered_map<std::vector<i32>, i32, VecHash> merge_memo_;
    i32 initial_ = 0;
    std::size_t bytes_ = 0;
};

}  // namespace tg
