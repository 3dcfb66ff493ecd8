// See lexer.hpp; each step mirrors typedgen/compiler/lexer.py.
#include "lexer.hpp"

#include <algorithm>
#include <map>

namespace tg {

void GrammarSpec::validate() const {
    const i32 nt = n_terms();
    const i64 n_sym = static_cast<i64>(nt) + n_nonterminals;
    if (width != (static_cast<std::size_t>(nt) + 63) / 64 && !(nt == 0 && width == 1))
        throw InputError("bitset width does not match the terminal count");
    for (const TerminalSpec& t : terms) {
        const Dfa& d = t.dfa;
        if (d.n <= 0 || d.trans.size() != static_cast<std::size_t>(d.n) * 256 || d.accept.size() != static_cast<std::size_t>(d.n))
            throw InputError("malformed terminal DFA");
        for (i32 x : d.trans)
            if (x < -1 || x >= d.n) throw InputError("terminal DFA transition out of range");
        if (t.lexing < LEX_FREE || t.lexing > LEX_CONTEXTUAL) throw InputError("bad lexing mode");
    }
    if (prod_lhs.size() != prod_rhs.size()) throw InputError("production arrays differ in length");
    for (std::size_t i = 0; i < prod_lhs.size(); ++i) {
        check_index(prod_lhs[i] - nt, n_nonterminals, "production lhs");
        for (i32 s : prod_rhs[i]) check_index(s, n_sym, "production symbol");
    }
    check_index(start - nt, n_nonterminals, "start symbol");
    for (i32 t : ignore) check_index(t, nt, "ignored terminal");
    if (follow.size() != static_cast<std::size_t>(nt)) throw InputError("follow sets missing");
    for (const auto& f : follow)
        if (f.size() != width) throw InputError("follow set of the wrong width");
    if (first.size() != width) throw InputError("first set of the wrong width");
}

std::size_t Lexer::KeyHash::operator()(const Key& k) const {
    u64 h = mix64(static_cast<u64>(static_cast<u32>(k.fresh_allowed)) + 0x51ed27);
    for (const Member& m : k.members) h = mix64(h ^ (key2(m.t, m.q) + (h << 5)));
    return static_cast<std::size_t>(h);
}

Lexer::Lexer(const GrammarSpec& g, BitPool& bits, i64 budget)
    : g_(g), bits_(bits), budget_(budget), n_(g.n_terms()), w_(bits.width()) {
    free_.assign(w_, 0);
    basic_.assign(w_, 0);
    contextual_.assign(w_, 0);
    ignore_.assign(w_, 0);
    for (i32 t = 0; t < n_; ++t) {
        i32 mode = g.terms[static_cast<std::size_t>(t)].lexing;
        Bits::set(mode == LEX_FREE ? free_.data() : mode == LEX_BASIC ? basic_.data() : contextual_.data(), t);
    }
    nonfree_.resize(w_);
    for (std::size_t i = 0; i < w_; ++i) nonfree_[i] = basic_[i] | contextual_[i];
    for (i32 t : g.ignore) Bits::set(ignore_.data(), t);
    // Dense rank: (priority, literal) compared lexicographically.
    std::vector<std::pair<i64, int>> keys;
    for (const TerminalSpec& t : g.terms) keys.emplace_back(t.priority, t.literal ? 1 : 0);
    std::vector<std::pair<i64, int>> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (const auto& k : keys)
        rank_.push_back(static_cast<i32>(std::lower_bound(sorted.begin(), sorted.end(), k) - sorted.begin()));
    std::vector<u8> in_rules(static_cast<std::size_t>(n_), 0);
    for (const auto& rhs : g.prod_rhs)
        for (i32 s : rhs)
            if (s < n_) in_rules[static_cast<std::size_t>(s)] = 1;
    transparent_.assign(static_cast<std::size_t>(n_), 0);
    for (i32 t : g.ignore)
        if (!in_rules[static_cast<std::size_t>(t)]) transparent_[static_cast<std::size_t>(t)] = 1;
    for (const auto& f : g.follow) follow_ids_.push_back(bits_.intern(f));
    final_only_.resize(static_cast<std::size_t>(n_));
    for (i32 t = 0; t < n_; ++t) {
        const TerminalSpec& term = g.terms[static_cast<std::size_t>(t)];
        if (term.lexing != LEX_BASIC) continue;
        std::vector<u8>& fo = final_only_[static_cast<std::size_t>(t)];
        fo.assign(static_cast<std::size_t>(term.dfa.n), 0);
        for (i32 q = 0; q < term.dfa.n; ++q) {
            if (!term.dfa.accept[static_cast<std::size_t>(q)]) continue;
            bool stuck = true;
            for (int b = 0; b < 256 && stuck; ++b) stuck = term.dfa.at(q, b) < 0;
            fo[static_cast<std::size_t>(q)] = stuck ? 1 : 0;
        }
    }
    tag_sets_.push_back(0);
    initial_ = start_state(bits_.intern(g.first));
}

i32 Lexer::new_state(Key&& key) {
    i32 sid = static_cast<i32>(states_.size());
    if (sid >= budget_) {
        throw BudgetError("lexer-budget", "the combined lexer exceeds " + std::to_string(budget_) + " states");
    }
    State st;
    std::vector<u64> acc(w_, 0), alive(w_, 0), resume(w_, 0);
    for (const Member& m : key.members) {
        i32 t = m.t % n_;
        Bits::set(alive.data(), t);
        const Dfa& d = g_.terms[static_cast<std::size_t>(t)].dfa;
        if (d.accept[static_cast<std::size_t>(m.q)]) {
            Bits::set(acc.data(), t);
            if (m.t >= n_) {
                const u64* tagged = bits_.get(tag_sets_[static_cast<std::size_t>(m.t / n_)]);
                for (std::size_t i = 0; i < w_; ++i) resume[i] |= tagged[i];
            }
        }
    }
    st.accept = bits_.intern(acc);
    st.alive = bits_.intern(alive);
    st.resume = bits_.intern(resume);
    st.fresh = key.fresh_allowed >= 0;
    st.key = key;
    index_.emplace(std::move(key), sid);
    accept_.push_back(st.accept);
    alive_.push_back(st.alive);
    states_.push_back(std::move(st));
    std::unique_ptr<i32[]> row(new i32[257]);
    std::fill(row.get(), row.get() + 256, -1);
    row[256] = 0;  // not expanded yet
    rows_.push_back(std::move(row));
    events_on_.emplace_back();
    return sid;
}

i32 Lexer::start_state(i32 allowed_id) {
    std::vector<u64> allowed(bits_.get(allowed_id), bits_.get(allowed_id) + w_);
    for (std::size_t i = 0; i < w_; ++i) allowed[i] |= basic_[i];
    i32 aid = bits_.intern(allowed);
    auto memo = start_memo_.find(aid);
    if (memo != start_memo_.end()) return memo->second;
    auto tag_it = tags_.find(aid);
    i32 tag;
    if (tag_it == tags_.end()) {
        tag = static_cast<i32>(tag_sets_.size());
        tags_.emplace(aid, tag);
        tag_sets_.push_back(aid);
    } else {
        tag = tag_it->second;
    }
    Key key;
    key.fresh_allowed = aid;
    const u64* a = bits_.get(aid);
    Bits::for_each(a, w_, [&](i32 t) {
        i64 tagged = transparent_[static_cast<std::size_t>(t)] ? static_cast<i64>(t) + static_cast<i64>(n_) * tag : t;
        if (tagged > INT32_MAX) throw BudgetError("lexer-budget", "too many ignored-terminal start sets");
        key.members.push_back({static_cast<i32>(tagged), 0});
    });
    auto found = index_.find(key);
    i32 sid = found != index_.end() ? found->second : new_state(std::move(key));
    start_memo_.emplace(aid, sid);
    return sid;
}

void Lexer::expand(i32 s) {
    // Copy the members: new states may be appended while we work.
    const std::vector<Member> members = states_[static_cast<std::size_t>(s)].key.members;
    std::array<i32, 256> row;
    row.fill(-1);
    if (!members.empty()) {
        std::vector<std::pair<std::vector<Member>, std::vector<int>>> groups;
        std::unordered_map<Key, std::size_t, KeyHash> local;
        Key nxt;
        nxt.fresh_allowed = -1;
        for (int b = 0; b < 256; ++b) {
            nxt.members.clear();
            for (const Member& m : members) {
                i32 q = g_.terms[static_cast<std::size_t>(m.t % n_)].dfa.at(m.q, b);
                if (q >= 0) nxt.members.push_back({m.t, q});
            }
            if (nxt.members.empty()) continue;
            prune(nxt.members);
            auto found = index_.find(nxt);
            i32 target = found != index_.end() ? found->second : new_state(Key(nxt));
            row[static_cast<std::size_t>(b)] = target;
        }
    }
    i32* dst = rows_[static_cast<std::size_t>(s)].get();
    std::copy(row.begin(), row.end(), dst);
    dst[256] = 1;
}

// Drop basic members that can neither go on nor end (see Lexer._prune in lexer.py): accepting
// with no way on, while a higher-ranked basic terminal accepts the same text.
void Lexer::prune(std::vector<Member>& members) const {
    auto final_only = [&](const Member& m) {
        const std::vector<u8>& fo = final_only_[static_cast<std::size_t>(m.t % n_)];
        return !fo.empty() && fo[static_cast<std::size_t>(m.q)] != 0;
    };
    bool any = false;
    for (const Member& m : members) any = any || final_only(m);
    if (!any) return;
    i32 top = -1;
    for (const Member& m : members) {
        const i32 t = m.t % n_;
        if (Bits::test(basic_.data(), t) && g_.terms[static_cast<std::size_t>(t)].dfa.accept[static_cast<std::size_t>(m.q)])
            top = std::max(top, term_rank(t));
    }
    if (top < 0) return;
    std::size_t out = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
        const Member m = members[i];
        if (final_only(m) && term_rank(m.t % n_) < top) continue;
        members[out++] = m;
    }
    members.resize(out);
}

const std::vector<i32>& Lexer::events_on(i32 s, int byte) {
    auto& table = events_on_[static_cast<std::size_t>(s)];
    if (!table) {
        table.reset(new const std::vector<i32>*[256]);
        std::fill(table.get(), table.get() + 256, nullptr);
    }
    const std::vector<i32>*& slot = table[static_cast<std::size_t>(byte)];
    if (slot == nullptr) slot = &events(s, row(s)[byte]);
    return *slot;
}

i32 Lexer::event_id(i32 ends, i32 blockers, i32 resume) {
    std::vector<i32> key{ends, blockers, resume};
    auto found = event_index_.find(key);
    if (found != event_index_.end()) return found->second;
    std::vector<u64> follow(w_, 0);
    const u64* res = bits_.get(resume);
    Bits::for_each(bits_.get(ends), w_, [&](i32 t) {
        const u64* f = transparent_[static_cast<std::size_t>(t)] ? res : bits_.get(follow_ids_[static_cast<std::size_t>(t)]);
        for (std::size_t i = 0; i < w_; ++i) follow[i] |= f[i];
    });
    // bits_.get pointers may move when interning: copy `res` use finished above.
    i32 restart = start_state(bits_.intern(follow));
    i32 id = static_cast<i32>(events_list_.size());
    events_list_.push_back({ends, blockers, resume, restart});
    event_index_.emplace(std::move(key), id);
    return id;
}

const std::vector<i32>& Lexer::events(i32 s, i32 nxt) {
    u64 memo_key = key2(s, nxt);
    auto memo = events_memo_.find(memo_key);
    if (memo != events_memo_.end()) return memo->second;
    std::vector<i32> out;
    const State st = states_[static_cast<std::size_t>(s)];
    if (st.accept != 0) {
        std::vector<u64> acc(bits_.get(st.accept), bits_.get(st.accept) + w_);
        std::vector<u64> going_on(w_, 0);
        if (nxt >= 0) {
            const u64* al = bits_.get(states_[static_cast<std::size_t>(nxt)].alive);
            for (std::size_t i = 0; i < w_; ++i) going_on[i] = al[i] & nonfree_[i];
        }
        const bool going = Bits::any(going_on.data(), w_);
        std::vector<u64> tmp(w_);
        // Free terminals end wherever they match.
        for (std::size_t i = 0; i < w_; ++i) tmp[i] = acc[i] & free_[i];
        if (Bits::any(tmp.data(), w_)) out.push_back(event_id(bits_.intern(tmp), 0, st.resume));
        // Basic terminals: only when no non-free terminal goes on; the top rank wins.
        for (std::size_t i = 0; i < w_; ++i) tmp[i] = acc[i] & basic_[i];
        if (Bits::any(tmp.data(), w_) && !going) {
            i32 best = -1;
            Bits::for_each(tmp.data(), w_, [&](i32 t) { best = std::max(best, term_rank(t)); });
            std::vector<u64> top(w_, 0);
            Bits::for_each(tmp.data(), w_, [&](i32 t) {
                if (term_rank(t) == best) Bits::set(top.data(), t);
            });
            out.push_back(event_id(bits_.intern(top), 0, st.resume));
        }
        // Contextual terminals: blocked by expected terminals that go on or rank higher.
        std::vector<u64> ctx(w_);
        for (std::size_t i = 0; i < w_; ++i) ctx[i] = acc[i] & contextual_[i];
        if (Bits::any(ctx.data(), w_)) {
            std::vector<i32> nonfree_acc;
            for (std::size_t i = 0; i < w_; ++i) tmp[i] = acc[i] & nonfree_[i];
            Bits::for_each(tmp.data(), w_, [&](i32 t) { nonfree_acc.push_back(t); });
            std::vector<i32> ranks;
            Bits::for_each(ctx.data(), w_, [&](i32 t) { ranks.push_back(term_rank(t)); });
            std::sort(ranks.begin(), ranks.end());
            ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
            const std::vector<u64> alive(bits_.get(st.alive), bits_.get(st.alive) + w_);
            for (auto r = ranks.rbegin(); r != ranks.rend(); ++r) {
                std::vector<u64> ends(w_, 0), blockers = going_on;
                Bits::for_each(ctx.data(), w_, [&](i32 t) {
                    if (term_rank(t) == *r) Bits::set(ends.data(), t);
                });
                for (i32 t : nonfree_acc)
                    if (term_rank(t) > *r) Bits::set(blockers.data(), t);
                // Statically impossible (see lexer.py): an ignored blocker, every alive
                // terminal a blocker, or every ending terminal a blocker.
                bool impossible = Bits::any_and(blockers.data(), ignore_.data(), w_);
                if (!impossible) {
                    bool rest = false, ending = false;
                    for (std::size_t i = 0; i < w_; ++i) {
                        rest |= (alive[i] & ~blockers[i]) != 0;
                        ending |= (ends[i] & ~blockers[i]) != 0;
                    }
                    impossible = !rest || !ending;
                }
                if (impossible) continue;
                out.push_back(event_id(bits_.intern(ends), bits_.intern(blockers), st.resume));
            }
        }
    }
    return events_memo_.emplace(memo_key, std::move(out)).first->second;
}

std::vector<i32> Lexer::alive_terms(i32 s) const {
    std::vector<i32> out;
    Bits::for_each(bits_.get(states_[static_cast<std::size_t>(s)].alive), w_, [&](i32 t) { out.push_back(t); });
    return out;
}

std::size_t Lexer::bytes() const {
    std::size_t total = rows_.size() * 257 * sizeof(i32);
    for (const auto& t : events_on_)
        if (t) total += 256 * sizeof(void*);
    for (const State& st : states_) total += sizeof(State) + st.key.members.size() * sizeof(Member) * 2;
    total += events_memo_.size() * 48 + events_list_.size() * sizeof(LexEvent) * 2;
    return total;
}

}  // namespace tg
