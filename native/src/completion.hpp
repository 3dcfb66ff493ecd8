// Closing a text on a budget: A* over lexemes and parse sets, a port of
// typedgen/runtime/completion.py (see its docstring). Edges are whole lexemes (finish the one in
// progress, or the shortest string of a terminal the parser may expect next), taken by the
// engine's exact byte stepping; the estimate is the fewest bytes the Earley items still need.
// Runs inside Engine::shortest_completion with the engine's lock held.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common.hpp"

namespace tg {

class Engine;

class CompletionSearch {
  public:
    explicit CompletionSearch(Engine& engine);
    // A short completion of `state`, or nothing when `limit` states were visited.
    std::optional<std::string> search(i32 state, i64 limit);
    std::size_t bytes() const;

  private:
    struct Paths {
        std::vector<i64> dist;  // fewest bytes to acceptance per DFA state
        std::vector<i32> succ;  // the preferred byte one step closer
    };
    struct Local {
        std::unordered_map<i32, std::vector<std::pair<i32, i64>>> edges;  // lhs -> (awaited nt, rest)
        std::vector<std::pair<i32, i64>> best;                            // (lhs, fewest bytes)
    };

    const Paths& paths(i32 term);
    const std::string& spell(i32 term, i32 q);
    const Local& local(i32 sid);
    const std::unordered_map<i32, i64>& need(i32 sid);
    std::unordered_map<i32, i64> compute_need(i32 sid);
    i64 estimate(i32 sid);
    i64 state_estimate(i32 state);
    void edges(i32 state, std::vector<std::string>& out);

    Engine& e_;
    i32 n_terms_;
    std::vector<i64> rest_;  // per dotted item: fewest bytes of what follows the dot
    std::unordered_map<i32, Paths> paths_;
    std::unordered_map<u64, std::string, U64Hash> spelled_;
    std::unordered_map<i32, Local> locals_;
    std::unordered_map<i32, std::unordered_map<i32, i64>> need_;
    std::unordered_map<i32, i64> estimate_;
    std::size_t need_entries_ = 0;
};

}  // namespace tg
