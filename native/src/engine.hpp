// The shared, lazily built state machine behind every matcher of one compiled grammar: a port
// of typedgen/runtime/engine.py. A matcher state is an interned set of (lexer state, Earley
// set) pairs; its token transitions, mask and completeness are computed once and looked up.
//
// Thread safety: every public method takes the engine's mutex, so matchers of one grammar may
// run on many threads. Nothing here touches Python; the bindings release the GIL around calls.
// Memory: masks, pair masks, token tables and token transitions live in byte-bounded LRU
// caches (rebuilt on demand); interned states grow with what was visited and are reported by
// structure_bytes() so the owner can start a fresh engine for new matchers.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common.hpp"
#include "completion.hpp"
#include "earley.hpp"
#include "grammar.hpp"
#include "lexer.hpp"
#include "tables.hpp"
#include "vocab.hpp"

namespace tg {

template <class V>
class Lru {
  public:
    explicit Lru(std::size_t limit) : limit_(limit) {}
    std::shared_ptr<const V> get(u64 key) {
        auto found = map_.find(key);
        if (found == map_.end()) return nullptr;
        order_.splice(order_.begin(), order_, found->second);
        return found->second->value;
    }
    void put(u64 key, std::shared_ptr<const V> value, std::size_t bytes) {
        auto found = map_.find(key);
        if (found != map_.end()) {
            bytes_ -= found->second->bytes;
            order_.erase(found->second);
            map_.erase(found);
        }
        order_.push_front({key, std::move(value), bytes});
        map_.emplace(key, order_.begin());
        bytes_ += bytes;
        while (bytes_ > limit_ && order_.size() > 1) {
            const Node& last = order_.back();
            bytes_ -= last.bytes;
            map_.erase(last.key);
            order_.pop_back();
            ++evictions_;
        }
    }
    void clear() {
        order_.clear();
        map_.clear();
        bytes_ = 0;
    }
    std::size_t bytes() const { return bytes_ + map_.size() * 48; }
    std::size_t size() const { return map_.size(); }
    std::size_t evictions() const { return evictions_; }
    void set_limit(std::size_t limit) { limit_ = limit; }

  private:
    struct Node {
        u64 key;
        std::shared_ptr<const V> value;
        std::size_t bytes;
    };
    std::size_t limit_;
    std::size_t bytes_ = 0;
    std::size_t evictions_ = 0;
    std::list<Node> order_;
    std::unordered_map<u64, typename std::list<Node>::iterator, U64Hash> map_;
};

struct Limits {
    i64 lexer_states = 200000;
    i64 walk_budget = 8000000;
    std::size_t mask_bytes = 64u << 20;
    std::size_t pair_bytes = 64u << 20;
    std::size_t table_bytes = 128u << 20;
    std::size_t transition_entries = 1u << 21;
};

using Mask = std::vector<u32>;

class Engine {
  public:
    Engine(std::shared_ptr<const Vocab> vocab, GrammarSpec spec, Limits limits);

    // Build the first token table (so compile-time budgets surface at compile time).
    void prepare();

    i32 initial() const { return initial_; }
    i32 advance_token(i32 state, i32 token);
    i32 advance_bytes(i32 state, const u8* data, std::size_t n);
    bool is_complete(i32 state);
    std::shared_ptr<const Mask> mask(i32 state);
    void fill(i32 state, i32* out, std::size_t n_out);
    // Copy a cached mask; false (nothing written) when it still has to be computed.
    bool fill_cached(i32 state, i32* out, std::size_t n_out);
    bool mask_any(i32 state);
    std::vector<u8> allowed_bytes(i32 state);
    std::string forced_bytes(i32 state, i32 limit);
    std::optional<std::string> shortest_completion(i32 state, i32 limit);

    i32 n_words() const { return vocab_->n_words(); }
    i32 vocab_size() const { return vocab_->size(); }
    bool take_slow_warning();
    std::vector<i32> lexer_alive_terms(i32 lex);
    // Where `state` stands in its lexeme: 2 (free text) when every pair is a lexeme in progress
    // (not fresh) that at least `min_width` distinct bytes continue (a string, identifier or
    // comment body); 1 when every pair is in progress and none can end here (inside an escape);
    // 0 otherwise (a lexeme may end or begin here).
    i32 text_kind(i32 state, i32 min_width);
    std::size_t structure_bytes();
    std::size_t cache_bytes();
    std::vector<std::pair<std::string, double>> stats();
    void set_cache_limits(std::size_t mask_bytes, std::size_t pair_bytes, std::size_t table_bytes);
    void set_walk_budget(i64 budget);

  private:
    friend class CompletionSearch;
    using Pairs = std::vector<std::pair<i32, i32>>;

    void check_state(i32 state) const;  // call with the lock held
    i32 intern(Pairs&& pairs);
    bool advance(Pairs& pairs, const u8* data, std::size_t n);
    bool complete_unlocked(i32 state);
    std::shared_ptr<const Mask> mask_unlocked(i32 state);
    std::shared_ptr<const Mask> pair_mask(i32 lex, i32 sid);
    std::shared_ptr<const LexTable> table(i32 lex);
    void stepped(i32 lex, i32 sid, Mask& words);
    const std::array<u64, 4>& allowed_unlocked(i32 state);
    i32 advance_bytes_unlocked(i32 state, const u8* data, std::size_t n);
    std::optional<std::string> search_completion(i32 state, i32 limit, bool prefer_closing);

    std::mutex mu_;
    std::shared_ptr<const Vocab> vocab_;
    GrammarSpec spec_;
    Limits limits_;
    BitPool bits_;
    Lexer lexer_;
    ParseTable parse_;
    TableBuilder builder_;
    std::vector<Pairs> states_;
    std::unordered_map<Pairs, i32, VecHash> index_;
    std::vector<i8> complete_;  // per state: -1 unknown, 0/1
    std::unordered_map<i32, std::array<u64, 4>> allowed_;
    std::unordered_map<i32, std::pair<std::optional<std::string>, i32>> completion_;
    std::unique_ptr<CompletionSearch> closer_;
    FlatMap tok_;
    Lru<Mask> masks_, pair_masks_;
    Lru<LexTable> tables_;
    std::unordered_set<i32> slow_lex_;
    bool slow_warning_ = false;
    std::vector<u32> eos_words_;
    i32 initial_ = 0;
    std::size_t states_bytes_ = 0;
    u64 table_builds_ = 0, mask_builds_ = 0, pair_builds_ = 0;
    double t_build_ = 0, t_paths_ = 0, t_groups_ = 0;
};

// Fill rows of a (rows x row_words) int32 bitmask from many matchers at once, on a small pool
// of threads. engines[i] and states[i] describe row rows_idx[i].
void fill_batch(const std::vector<Engine*>& engines, const std::vector<i32>& states,
                const std::vector<i32>& rows_idx, i32* out, std::size_t n_rows,
                std::size_t row_words, int threads);

}  // namespace tg
