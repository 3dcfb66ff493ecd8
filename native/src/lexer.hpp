// The combined lexer: one lazily determinised DFA running many terminals at once.
// A port of typedgen/compiler/lexer.py; see that module's docstring for the model
// (start states per FOLLOW set, tagged ignored terminals, events with blockers).
#pragma once

#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "grammar.hpp"

namespace tg {

struct LexEvent {
    i32 ends;      // bitset id: terminals that may end here
    i32 blockers;  // bitset id: unless the parser expects one of these
    i32 resume;    // bitset id: start set of an ending ignored lexeme
    i32 restart;   // fresh lexer state after the event
};

class Lexer {
  public:
    struct Member {
        i32 t;  // terminal id, plus n * tag for tagged (transparent) ignored terminals
        i32 q;
        bool operator==(const Member& o) const { return t == o.t && q == o.q; }
    };

    Lexer(const GrammarSpec& g, BitPool& bits, i64 budget);

    i32 initial() const { return initial_; }
    i32 n_states() const { return static_cast<i32>(states_.size()); }

    // Transition row of `s` (expanded on first use). -1 is the dead state.
    const i32* row(i32 s) {
        const i32* r = rows_[static_cast<std::size_t>(s)].get();
        if (r[256] == 0) expand(s);
        return r;
    }
    i32 step(i32 s, int byte) { return row(s)[byte]; }

    i32 accept_bits(i32 s) const { return accept_[static_cast<std::size_t>(s)]; }
    bool accepting(i32 s) const { return accept_[static_cast<std::size_t>(s)] != 0; }
    i32 alive_bits(i32 s) const { return alive_[static_cast<std::size_t>(s)]; }
    bool fresh(i32 s) const { return states_[static_cast<std::size_t>(s)].fresh; }

    // Event ids for ending the lexeme in `s` when the next byte leads to `nxt` (-1: no byte
    // can follow, or the end of the text).
    const std::vector<i32>& events(i32 s, i32 nxt);
    // The same, by the next byte (`row(s)[byte]`), memoised per state: the walk's fast path.
    const std::vector<i32>& events_on(i32 s, int byte);
    LexEvent event(i32 ev) const { return events_list_[static_cast<std::size_t>(ev)]; }
    i32 event_restart(i32 ev) const { return events_list_[static_cast<std::size_t>(ev)].restart; }
    i32 n_events() const { return static_cast<i32>(events_list_.size()); }

    // Terminal ids alive in `s`, for error messages.
    std::vector<i32> alive_terms(i32 s) const;
    std::size_t bytes() const;

    // The (terminal, DFA state) members of `s` (empty for a fresh state's bookkeeping entry).
    const std::vector<Member>& members(i32 s) const { return states_[static_cast<std::size_t>(s)].key.members; }
    i32 n_terms() const { return n_; }

  private:
    struct Key {
        i32 fresh_allowed;  // bitset id of the start set for fresh states, -1 otherwise
        std::vector<Member> members;
        bool operator==(const Key& o) const {
            return fresh_allowed == o.fresh_allowed && members == o.members;
        }
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const;
    };
    struct State {
        Key key;
        i32 accept = 0, alive = 0, resume = 0;
        bool fresh = false;
    };

    i32 new_state(Key&& key);
    i32 start_state(i32 allowed);
    void expand(i32 s);
    void prune(std::vector<Member>& members) const;
    i32 event_id(i32 ends, i32 blockers, i32 resume);
    i32 term_rank(i32 t) const { return rank_[static_cast<std::size_t>(t)]; }

    const GrammarSpec& g_;
    BitPool& bits_;
    i64 budget_;
    i32 n_;
    std::size_t w_;
    std::vector<u64> free_, basic_, contextual_, nonfree_, ignore_;
    std::vector<i32> rank_;  // dense rank order of (priority, literal)
    std::vector<u8> transparent_;
    std::vector<std::vector<u8>> final_only_;  // per basic terminal and DFA state: accepts, no way on
    std::vector<i32> follow_ids_;
    std::vector<i32> tag_sets_;  // tag -> bitset id (tag 0: empty)
    std::unordered_map<i32, i32> tags_;
    std::unordered_map<i32, i32> start_memo_;
    std::vector<State> states_;
    // One row per state, 256 targets plus an "expanded" flag; separately allocated so row
    // pointers stay valid while states are added.
    std::vector<std::unique_ptr<i32[]>> rows_;
    std::vector<i32> accept_, alive_;
    std::vector<std::unique_ptr<const std::vector<i32>*[]>> events_on_;
    std::unordered_map<Key, i32, KeyHash> index_;
    std::vector<LexEvent> events_list_;
    std::unordered_map<std::vector<i32>, i32, VecHash> event_index_;
    std::unordered_map<u64, std::vector<i32>, U64Hash> events_memo_;
    i32 initial_ = 0;
};

}  // namespace tg
