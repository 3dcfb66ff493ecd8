// See engine.hpp; each method mirrors its namesake in typedgen/runtime/engine.py.
#include "engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <thread>

namespace tg {

namespace {
double cpu_now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
constexpr char CLOSING[] = "\"}])0,:";
constexpr i64 kLexemeSearchFactor = 8;  // typedgen/runtime/engine.py: LEXEME_SEARCH_FACTOR
bool is_closing(int b) {
    for (const char* p = CLOSING; *p; ++p)
        if (static_cast<u8>(*p) == b) return true;
    return false;
}
std::size_t mask_bytes(const Mask& m) { return m.size() * 4 + 64; }
}  // namespace

Engine::Engine(std::shared_ptr<const Vocab> vocab, GrammarSpec spec, Limits limits)
    : vocab_(std::move(vocab)),
      spec_((spec.validate(), std::move(spec))),
      limits_(limits),
      bits_(spec_.width),
      lexer_(spec_, bits_, limits.lexer_states),
      parse_(spec_, bits_, lexer_),
      builder_(lexer_, bits_, *vocab_, limits.walk_budget),
      masks_(limits.mask_bytes),
      pair_masks_(limits.pair_bytes),
      tables_(limits.table_bytes) {
    eos_words_.assign(static_cast<std::size_t>(vocab_->n_words()), 0u);
    for (i32 t : vocab_->eos()) eos_words_[static_cast<std::size_t>(t >> 5)] |= 1u << (t & 31);
    initial_ = intern({{lexer_.initial(), parse_.initial()}});
}

void Engine::prepare() {
    std::lock_guard<std::mutex> lock(mu_);
    table(lexer_.initial());
}

void Engine::check_state(i32 state) const {
    if (state < 0 || state >= static_cast<i32>(states_.size())) throw InputError("matcher state " + std::to_string(state) + " out of range");
}

i32 Engine::intern(Pairs&& pairs) {
    auto found = index_.find(pairs);
    if (found != index_.end()) return found->second;
    i32 id = static_cast<i32>(states_.size());
    states_bytes_ += pairs.size() * 16 + 96;
    states_.push_back(pairs);
    index_.emplace(std::move(pairs), id);
    complete_.push_back(-1);
    return id;
}

bool Engine::advance(Pairs& pairs, const u8* data, std::size_t n) {
    Pairs next;
    for (std::size_t k = 0; k < n; ++k) {
        const int b = data[k];
        next.clear();
        for (const auto& [lex, sid] : pairs) {
            const i32 nxt = lexer_.step(lex, b);
            if (nxt >= 0 && bits_.intersects(lexer_.alive_bits(nxt), parse_.exp(sid))) next.emplace_back(nxt, sid);
            if (lexer_.accepting(lex)) {
                const std::vector<i32>& evs = lexer_.events(lex, nxt);
                for (i32 ev : evs) {
                    const i32 fresh = lexer_.step(lexer_.event(ev).restart, b);
                    if (fresh < 0) continue;
                    const i32 after = parse_.step(sid, ev);
                    if (after >= 0 && bits_.intersects(lexer_.alive_bits(fresh), parse_.exp(after)))
                        next.emplace_back(fresh, after);
                }
            }
        }
        if (next.empty()) {
            pairs.clear();
            return false;
        }
        std::sort(next.begin(), next.end());
        pairs.clear();
        std::size_t i = 0;
        while (i < next.size()) {
            std::size_t j = i;
            while (j < next.size() && next[j].first == next[i].first) ++j;
            if (j - i == 1) {
                pairs.push_back(next[i]);
            } else {
                std::vector<i32> sids;
                for (std::size_t x = i; x < j; ++x) sids.push_back(next[x].second);
                pairs.emplace_back(next[i].first, parse_.merge(std::move(sids)));
            }
            i = j;
        }
    }
    return true;
}

i32 Engine::advance_bytes_unlocked(i32 state, const u8* data, std::size_t n) {
    Pairs pairs = states_[static_cast<std::size_t>(state)];
    if (!advance(pairs, data, n)) return DEAD;
    return intern(std::move(pairs));
}

i32 Engine::advance_bytes(i32 state, const u8* data, std::size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    return advance_bytes_unlocked(state, data, n);
}

i32 Engine::advance_token(i32 state, i32 token) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    const u64 key = key2(state, token);
    if (const i32* found = tok_.find(key)) return *found;
    i32 result = DEAD;
    if (vocab_->is_text(token)) {
        i64 len = 0;
        const u8* data = vocab_->token(token, len);
        result = advance_bytes_unlocked(state, data, static_cast<std::size_t>(len));
    }
    if (tok_.size() >= limits_.transition_entries) tok_.clear();
    tok_.put(key, result);
    return result;
}

bool Engine::complete_unlocked(i32 state) {
    i8& memo = complete_[static_cast<std::size_t>(state)];
    if (memo >= 0) return memo != 0;
    bool result = false;
    const Pairs pairs = states_[static_cast<std::size_t>(state)];
    for (const auto& [lex, sid] : pairs) {
        if (lexer_.fresh(lex)) {
            if (parse_.accepting(sid)) {
                result = true;
                break;
            }
            continue;
        }
        if (!lexer_.accepting(lex)) continue;
        const std::vector<i32>& evs = lexer_.events(lex, -1);
        for (i32 ev : evs) {
            const i32 after = parse_.step(sid, ev);
            if (after >= 0 && parse_.accepting(after)) {
                result = true;
                break;
            }
        }
        if (result) break;
    }
    complete_[static_cast<std::size_t>(state)] = result ? 1 : 0;
    return result;
}

bool Engine::is_complete(i32 state) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    return complete_unlocked(state);
}

std::shared_ptr<const LexTable> Engine::table(i32 lex) {
    if (auto found = tables_.get(static_cast<u64>(lex))) return found;
    auto c0 = cpu_now();
    auto tab = builder_.build(lex);
    t_build_ += (cpu_now() - c0);
    ++table_builds_;
    tables_.put(static_cast<u64>(lex), tab, tab->bytes);
    return tab;
}

void Engine::stepped(i32 lex, i32 sid, Mask& words) {
    for (i32 t : vocab_->text_ids()) {
        i64 len = 0;
        const u8* data = vocab_->token(t, len);
        Pairs pairs{{lex, sid}};
        if (advance(pairs, data, static_cast<std::size_t>(len))) words[static_cast<std::size_t>(t >> 5)] |= 1u << (t & 31);
    }
}

std::shared_ptr<const Mask> Engine::pair_mask(i32 lex, i32 sid) {
    const u64 key = key2(lex, sid);
    if (auto found = pair_masks_.get(key)) return found;
    auto words = std::make_shared<Mask>(static_cast<std::size_t>(vocab_->n_words()), 0u);
    ++pair_builds_;
    std::shared_ptr<const LexTable> tab;
    if (!slow_lex_.count(lex)) {
        try {
            tab = table(lex);
        } catch (const BudgetError&) {
            // The hot path never raises: step every token's bytes instead (exact, slow).
            slow_lex_.insert(lex);
            slow_warning_ = true;
        }
    }
    if (!tab) {
        stepped(lex, sid, *words);
    } else {
        const LexTable& t = *tab;
        const std::size_t np = t.path_parent.size();
        auto c0 = cpu_now();
        std::vector<i32> at(np, DEAD);
        at[0] = sid;
        for (std::size_t p = 1; p < np; ++p) {
            const i32 par = at[static_cast<std::size_t>(t.path_parent[p])];
            at[p] = par >= 0 ? parse_.step(par, t.path_event[p]) : DEAD;
        }
        auto c1 = cpu_now();
        t_paths_ += (c1 - c0);
        const std::size_t nw = words->size();
        u32* out = words->data();
        for (i32 g = 0; g < t.n_groups(); ++g) {
            const i32 s = at[static_cast<std::size_t>(t.group_path[static_cast<std::size_t>(g)])];
            if (s < 0 || !bits_.intersects(parse_.exp(s), t.group_alive[static_cast<std::size_t>(g)])) continue;
            const i32 d = t.group_dense[static_cast<std::size_t>(g)];
            if (d >= 0) {
                const u32* row = t.dense.data() + static_cast<std::size_t>(d) * nw;
                for (std::size_t i = 0; i < nw; ++i) out[i] |= row[i];
            } else {
                for (i32 k = t.group_start[static_cast<std::size_t>(g)]; k < t.group_start[static_cast<std::size_t>(g) + 1]; ++k) {
                    const i32 tok = t.tokens[static_cast<std::size_t>(k)];
                    out[tok >> 5] |= 1u << (tok & 31);
                }
            }
        }
        t_groups_ += (cpu_now() - c1);
        for (const Delegate& dg : t.delegates) {
            const i32 resumed = parse_.step(sid, dg.event);
            if (resumed < 0) continue;
            auto part = pair_mask(dg.fresh, resumed);
            auto first = vocab_->first_byte_mask(dg.first);
            const u32* a = part->data();
            const u32* f = first->data();
            for (std::size_t i = 0; i < nw; ++i) out[i] |= a[i] & f[i];
        }
    }
    pair_masks_.put(key, words, mask_bytes(*words));
    return words;
}

std::shared_ptr<const Mask> Engine::mask_unlocked(i32 state) {
    if (auto found = masks_.get(static_cast<u64>(state))) return found;
    auto words = std::make_shared<Mask>(static_cast<std::size_t>(vocab_->n_words()), 0u);
    ++mask_builds_;
    const Pairs pairs = states_[static_cast<std::size_t>(state)];
    for (const auto& [lex, sid] : pairs) {
        auto part = pair_mask(lex, sid);
        for (std::size_t i = 0; i < words->size(); ++i) (*words)[i] |= (*part)[i];
    }
    if (complete_unlocked(state))
        for (std::size_t i = 0; i < words->size(); ++i) (*words)[i] |= eos_words_[i];
    masks_.put(static_cast<u64>(state), words, mask_bytes(*words));
    return words;
}

std::shared_ptr<const Mask> Engine::mask(i32 state) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    return mask_unlocked(state);
}

void Engine::fill(i32 state, i32* out, std::size_t n_out) {
    std::shared_ptr<const Mask> m = mask(state);  // copied outside the lock
    const std::size_t n = std::min(n_out, m->size());
    std::memcpy(out, m->data(), n * 4);
    if (n_out > n) std::memset(out + n, 0, (n_out - n) * 4);
}

bool Engine::fill_cached(i32 state, i32* out, std::size_t n_out) {
    std::shared_ptr<const Mask> m;
    {
        std::lock_guard<std::mutex> lock(mu_);
        check_state(state);
        m = masks_.get(static_cast<u64>(state));
    }
    if (!m) return false;
    const std::size_t n = std::min(n_out, m->size());
    std::memcpy(out, m->data(), n * 4);
    if (n_out > n) std::memset(out + n, 0, (n_out - n) * 4);
    return true;
}

bool Engine::mask_any(i32 state) {
    std::shared_ptr<const Mask> m = mask(state);
    for (u32 w : *m)
        if (w) return true;
    return false;
}

const std::array<u64, 4>& Engine::allowed_unlocked(i32 state) {
    auto found = allowed_.find(state);
    if (found != allowed_.end()) return found->second;
    std::array<u64, 4> set{0, 0, 0, 0};
    const Pairs base = states_[static_cast<std::size_t>(state)];
    for (int b = 0; b < 256; ++b) {
        Pairs pairs = base;
        u8 byte = static_cast<u8>(b);
        if (advance(pairs, &byte, 1)) set[static_cast<std::size_t>(b >> 6)] |= 1ULL << (b & 63);
    }
    return allowed_.emplace(state, set).first->second;
}

std::vector<u8> Engine::allowed_bytes(i32 state) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    const auto& set = allowed_unlocked(state);
    std::vector<u8> out;
    for (int b = 0; b < 256; ++b)
        if ((set[static_cast<std::size_t>(b >> 6)] >> (b & 63)) & 1ULL) out.push_back(static_cast<u8>(b));
    return out;
}

std::string Engine::forced_bytes(i32 state, i32 limit) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    std::string out;
    while (static_cast<i32>(out.size()) < limit && !complete_unlocked(state)) {
        const auto set = allowed_unlocked(state);
        int count = 0, only = -1;
        for (int b = 0; b < 256 && count < 2; ++b)
            if ((set[static_cast<std::size_t>(b >> 6)] >> (b & 63)) & 1ULL) {
                ++count;
                only = b;
            }
        if (count != 1) break;
        out.push_back(static_cast<char>(only));
        u8 byte = static_cast<u8>(only);
        state = advance_bytes_unlocked(state, &byte, 1);
        if (state == DEAD) break;
    }
    return out;
}

std::optional<std::string> Engine::search_completion(i32 state, i32 limit, bool prefer_closing) {
    std::unordered_map<i32, std::pair<i32, int>> parent{{state, {-1, -1}}};
    std::deque<i32> queue{state};
    while (!queue.empty()) {
        const i32 current = queue.front();
        queue.pop_front();
        const auto set = allowed_unlocked(current);
        std::vector<int> allowed;
        for (int b = 0; b < 256; ++b)
            if ((set[static_cast<std::size_t>(b >> 6)] >> (b & 63)) & 1ULL) allowed.push_back(b);
        if (prefer_closing) {
            std::vector<int> closing;
            for (int b : allowed)
                if (is_closing(b)) closing.push_back(b);
            if (!closing.empty()) allowed = closing;
        }
        for (int b : allowed) {
            u8 byte = static_cast<u8>(b);
            const i32 nxt = advance_bytes_unlocked(current, &byte, 1);
            if (nxt == DEAD || parent.count(nxt)) continue;
            parent.emplace(nxt, std::make_pair(current, b));
            if (complete_unlocked(nxt)) {
                std::string out;
                for (i32 at = nxt;;) {
                    const auto [prev, by] = parent[at];
                    if (by < 0) break;
                    out.push_back(static_cast<char>(by));
                    at = prev;
                }
                std::reverse(out.begin(), out.end());
                return out;
            }
            queue.push_back(nxt);
        }
        if (static_cast<i64>(parent.size()) > limit) return std::nullopt;
    }
    return std::nullopt;
}

std::optional<std::string> Engine::shortest_completion(i32 state, i32 limit) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    auto memo = completion_.find(state);
    if (memo != completion_.end() && (memo->second.first.has_value() || memo->second.second >= limit))
        return memo->second.first;
    std::optional<std::string> result;
    if (complete_unlocked(state)) {
        result = std::string();
    } else {
        // Over lexemes first (deep states); then bytes, closing bytes preferred, then all.
        if (!closer_) closer_ = std::make_unique<CompletionSearch>(*this);
        // The lexeme search counts the states it generates, a few hundred per expansion where
        // many keywords are expected (after SQL's WITH: 2,048 ran out, 4,096 found it), so it
        // gets kLexemeSearchFactor times the byte searches' limit.
        result = closer_->search(state, static_cast<i64>(limit) * kLexemeSearchFactor);
        if (!result) result = search_completion(state, limit, true);
        if (!result) result = search_completion(state, limit, false);
    }
    completion_[state] = {result, limit};
    return result;
}

bool Engine::take_slow_warning() {
    std::lock_guard<std::mutex> lock(mu_);
    bool w = slow_warning_;
    slow_warning_ = false;
    return w;
}

i32 Engine::text_kind(i32 state, i32 min_width) {
    std::lock_guard<std::mutex> lock(mu_);
    check_state(state);
    const Pairs& pairs = states_[static_cast<std::size_t>(state)];
    if (pairs.empty()) return 0;
    bool wide = true, closed = true;
    for (const auto& [lex, sid] : pairs) {
        (void)sid;
        if (lexer_.fresh(lex)) return 0;
        const i32* r = lexer_.row(lex);
        i32 width = 0;
        for (int b = 0; b < 256; ++b) width += r[b] >= 0 ? 1 : 0;
        wide = wide && width >= min_width;
        closed = closed && !lexer_.accepting(lex);
    }
    return wide ? 2 : closed ? 1 : 0;
}

std::vector<i32> Engine::lexer_alive_terms(i32 lex) {
    std::lock_guard<std::mutex> lock(mu_);
    check_index(lex, lexer_.n_states(), "lexer state");
    return lexer_.alive_terms(lex);
}

std::size_t Engine::structure_bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return lexer_.bytes() + parse_.bytes() + bits_.bytes() + states_bytes_ + allowed_.size() * 64 +
           completion_.size() * 64 + complete_.size() + (closer_ ? closer_->bytes() : 0);
}

std::size_t Engine::cache_bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return masks_.bytes() + pair_masks_.bytes() + tables_.bytes() + tok_.bytes();
}

void Engine::set_cache_limits(std::size_t mask_bytes_limit, std::size_t pair_bytes, std::size_t table_bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    masks_.set_limit(mask_bytes_limit);
    pair_masks_.set_limit(pair_bytes);
    tables_.set_limit(table_bytes);
}

void Engine::set_walk_budget(i64 budget) {
    std::lock_guard<std::mutex> lock(mu_);
    builder_.set_walk_budget(budget);
}

std::vector<std::pair<std::string, double>> Engine::stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {
        {"states", static_cast<double>(states_.size())},
        {"lexer_states", static_cast<double>(lexer_.n_states())},
        {"parse_sets", static_cast<double>(parse_.size())},
        {"tables_built", static_cast<double>(table_builds_)},
        {"tables_cached", static_cast<double>(tables_.size())},
        {"masks_built", static_cast<double>(mask_builds_)},
        {"masks_cached", static_cast<double>(masks_.size())},
        {"pair_masks_built", static_cast<double>(pair_builds_)},
        {"mask_evictions", static_cast<double>(masks_.evictions() + pair_masks_.evictions())},
        {"table_evictions", static_cast<double>(tables_.evictions())},
        {"slow_lexer_states", static_cast<double>(slow_lex_.size())},
        {"t_build", t_build_},
        {"t_paths", t_paths_},
        {"t_groups", t_groups_},
        {"walk_steps", static_cast<double>(builder_.steps)},
        {"walk_entries", static_cast<double>(builder_.entries)},
        {"walk_paths", static_cast<double>(builder_.paths)},
    };
}

// ---------------------------------------------------------------------------------------------
namespace {

// A small persistent pool: one parallel-for at a time, the caller takes part.
class Pool {
  public:
    static Pool& get() {
        static Pool* pool = new Pool();  // never destroyed: workers may outlive static teardown
        return *pool;
    }

    void run(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
        if (threads <= 1 || n <= 1) {
            for (std::size_t i = 0; i < n; ++i) fn(i);
            return;
        }
        std::lock_guard<std::mutex> one_job(run_mu_);
        const std::size_t helpers = std::min<std::size_t>(static_cast<std::size_t>(threads - 1), n - 1);
        {
            std::unique_lock<std::mutex> lock(mu_);
            while (workers_.size() < helpers) workers_.emplace_back([this] { loop(); });
            fn_ = &fn;
            n_ = n;
            next_.store(0);
            slots_ = helpers;
            active_ = helpers;
            error_ = nullptr;
            ++gen_;
        }
        cv_.notify_all();
        work();
        std::unique_lock<std::mutex> lock(mu_);
        done_.wait(lock, [this] { return active_ == 0; });
        fn_ = nullptr;
        if (error_) std::rethrow_exception(error_);
    }

  private:
    void work() {
        for (std::size_t i; (i = next_.fetch_add(1)) < n_;) {
            try {
                (*fn_)(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mu_);
                if (!error_) error_ = std::current_exception();
            }
        }
    }
    void loop() {
        u64 seen = 0;
        while (true) {
            {
                std::unique_lock<std::mutex> lock(mu_);
                cv_.wait(lock, [&] { return gen_ != seen && slots_ > 0; });
                seen = gen_;
                --slots_;
            }
            work();
            std::lock_guard<std::mutex> lock(mu_);
            if (--active_ == 0) done_.notify_all();
        }
    }

    std::mutex run_mu_, mu_;
    std::condition_variable cv_, done_;
    std::vector<std::thread> workers_;
    const std::function<void(std::size_t)>* fn_ = nullptr;
    std::size_t n_ = 0, slots_ = 0, active_ = 0;
    std::atomic<std::size_t> next_{0};
    u64 gen_ = 0;
    std::exception_ptr error_;
};

}  // namespace

void fill_batch(const std::vector<Engine*>& engines, const std::vector<i32>& states,
                const std::vector<i32>& rows_idx, i32* out, std::size_t n_rows, std::size_t row_words,
                int threads) {
    if (engines.size() != states.size() || engines.size() != rows_idx.size())
        throw InputError("fill_batch: engines, states and rows differ in length");
    for (std::size_t i = 0; i < engines.size(); ++i) {
        check_index(rows_idx[i], static_cast<i64>(n_rows), "bitmask row");
        if (engines[i] == nullptr) throw InputError("fill_batch: missing engine");
    }
    // Cached masks are copied at once (a thread hand-off would cost more than the copy);
    // the rest are computed on the pool, one task per engine (rows of one grammar share its
    // lock, so splitting them over threads would only make them wait), biggest groups first.
    std::unordered_map<Engine*, std::vector<std::size_t>> cold;
    std::vector<Engine*> order;
    for (std::size_t i = 0; i < engines.size(); ++i) {
        i32* row = out + static_cast<std::size_t>(rows_idx[i]) * row_words;
        if (states[i] < 0) {
            std::memset(row, 0, row_words * 4);
            continue;
        }
        if (engines[i]->fill_cached(states[i], row, row_words)) continue;
        auto& group = cold[engines[i]];
        if (group.empty()) order.push_back(engines[i]);
        group.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](Engine* a, Engine* b) { return cold[a].size() > cold[b].size(); });
    Pool::get().run(order.size(), threads, [&](std::size_t g) {
        for (std::size_t i : cold[order[g]]) {
            i32* row = out + static_cast<std::size_t>(rows_idx[i]) * row_words;
            engines[i]->fill(states[i], row, row_words);
        }
    });
}

}  // namespace tg
