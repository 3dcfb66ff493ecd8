// See completion.hpp; each step mirrors typedgen/runtime/completion.py.
#include "completion.hpp"

#include <algorithm>
#include <deque>
#include <queue>
#include <tuple>
#include <unordered_set>

#include "engine.hpp"

namespace tg {

namespace {
constexpr i64 INF = static_cast<i64>(1) << 60;
constexpr std::size_t MEMO_SETS = 200000;

// Rank of every byte when several spell a shortest string (lower is preferred): capitals,
// small letters, digits and '_', other printable bytes, space and line breaks, then the rest.
const std::vector<i32>& preference() {
    static const std::vector<i32> rank = [] {
        std::vector<int> order;
        std::vector<u8> used(256, 0);
        auto add = [&](int b) {
            if (!used[static_cast<std::size_t>(b)]) {
                used[static_cast<std::size_t>(b)] = 1;
                order.push_back(b);
            }
        };
        for (const char* p = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"; *p; ++p)
            add(static_cast<u8>(*p));
        for (int b = 33; b < 127; ++b) add(b);
        for (int b : {32, 10, 9, 13}) add(b);
        for (int b = 0; b < 256; ++b) add(b);
        std::vector<i32> r(256, 0);
        for (std::size_t i = 0; i < order.size(); ++i) r[static_cast<std::size_t>(order[i])] = static_cast<i32>(i);
        return r;
    }();
    return rank;
}

i64 add(i64 a, i64 b) { return std::min(INF, a + b); }
}  // namespace

CompletionSearch::CompletionSearch(Engine& engine) : e_(engine), n_terms_(engine.spec_.n_terms()) {
    const GrammarSpec& g = e_.spec_;
    const i32 n_sym = n_terms_ + g.n_nonterminals;
    std::vector<i64> least(static_cast<std::size_t>(n_sym), INF);
    for (i32 t = 0; t < n_terms_; ++t) least[static_cast<std::size_t>(t)] = paths(t).dist[0];
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t p = 0; p < g.prod_lhs.size(); ++p) {
            i64 total = 0;
            for (i32 s : g.prod_rhs[p]) total = add(total, least[static_cast<std::size_t>(s)]);
            i64& l = least[static_cast<std::size_t>(g.prod_lhs[p])];
            if (total < l) {
                l = total;
                changed = true;
            }
        }
    }
    const std::vector<i32>& item_next = e_.parse_.item_next();
    rest_.assign(item_next.size() + 1, 0);
    for (std::size_t it = item_next.size(); it-- > 0;) {
        const i32 sym = item_next[it];
        rest_[it] = sym < 0 ? 0 : add(least[static_cast<std::size_t>(sym)], rest_[it + 1]);
    }
}

const CompletionSearch::Paths& CompletionSearch::paths(i32 term) {
    auto found = paths_.find(term);
    if (found != paths_.end()) return found->second;
    const Dfa& d = e_.spec_.terms[static_cast<std::size_t>(term)].dfa;
    const std::size_t n = static_cast<std::size_t>(d.n);
    Paths p;
    p.dist.assign(n, INF);
    p.succ.assign(n, 0);
    std::vector<std::vector<i32>> preds(n);
    for (i32 q = 0; q < d.n; ++q) {
        i32 last = -2;
        for (int b = 0; b < 256; ++b) {
            const i32 r = d.at(q, b);
            if (r >= 0 && r != last) {
                std::vector<i32>& into = preds[static_cast<std::size_t>(r)];
                if (into.empty() || into.back() != q) into.push_back(q);
                last = r;
            }
        }
    }
    std::deque<i32> queue;
    for (i32 q = 0; q < d.n; ++q)
        if (d.accept[static_cast<std::size_t>(q)]) {
            p.dist[static_cast<std::size_t>(q)] = 0;
            queue.push_back(q);
        }
    while (!queue.empty()) {
        const i32 q = queue.front();
        queue.pop_front();
        for (i32 s : preds[static_cast<std::size_t>(q)])
            if (p.dist[static_cast<std::size_t>(s)] == INF) {
                p.dist[static_cast<std::size_t>(s)] = p.dist[static_cast<std::size_t>(q)] + 1;
                queue.push_back(s);
            }
    }
    const std::vector<i32>& pref = preference();
    for (i32 q = 0; q < d.n; ++q) {
        const i64 dq = p.dist[static_cast<std::size_t>(q)];
        i32 best = -1;
        for (int b = 0; b < 256; ++b) {
            const i32 r = d.at(q, b);
            if (r < 0 || p.dist[static_cast<std::size_t>(r)] != dq - 1) continue;
            if (best < 0 || pref[static_cast<std::size_t>(b)] < pref[static_cast<std::size_t>(best)]) best = b;
        }
        p.succ[static_cast<std::size_t>(q)] = best < 0 ? 0 : best;
    }
    return paths_.emplace(term, std::move(p)).first->second;
}

const std::string& CompletionSearch::spell(i32 term, i32 q) {
    const u64 key = key2(term, q);
    auto found = spelled_.find(key);
    if (found != spelled_.end()) return found->second;
    const Paths& p = paths(term);
    const Dfa& d = e_.spec_.terms[static_cast<std::size_t>(term)].dfa;
    std::string out;
    while (p.dist[static_cast<std::size_t>(q)] > 0 && p.dist[static_cast<std::size_t>(q)] < INF) {
        const i32 b = p.succ[static_cast<std::size_t>(q)];
        out.push_back(static_cast<char>(b));
        q = d.at(q, b);
    }
    return spelled_.emplace(key, std::move(out)).first->second;
}

const CompletionSearch::Local& CompletionSearch::local(i32 sid) {
    const i32 id = e_.parse_.local_id(sid);
    auto found = locals_.find(id);
    if (found != locals_.end()) return found->second;
    const std::vector<i32>& item_lhs = e_.parse_.item_lhs();
    Local l;
    std::unordered_map<i32, i64> best;
    std::vector<i32> order;
    for (const auto& [sym, it] : e_.parse_.local_waiting(id)) {
        const i32 lhs = item_lhs[static_cast<std::size_t>(it)];
        if (sym >= n_terms_) l.edges[lhs].emplace_back(sym, rest_[static_cast<std::size_t>(it) + 1]);
        auto b = best.find(lhs);
        if (b == best.end()) {
            best.emplace(lhs, rest_[static_cast<std::size_t>(it)]);
            order.push_back(lhs);
        } else {
            b->second = std::min(b->second, rest_[static_cast<std::size_t>(it)]);
        }
    }
    for (i32 lhs : order) l.best.emplace_back(lhs, best[lhs]);
    return locals_.emplace(id, std::move(l)).first->second;
}

const std::unordered_map<i32, i64>& CompletionSearch::need(i32 sid) {
    // Origins are older than their sets: resolve them first, without recursion.
    std::vector<i32> stack{sid};
    while (!stack.empty()) {
        const i32 s = stack.back();
        if (need_.count(s)) {
            stack.pop_back();
            continue;
        }
        bool missing = false;
        for (const auto& item : e_.parse_.kernel(s))
            if (!need_.count(item.org)) {
                stack.push_back(item.org);
                missing = true;
            }
        if (missing) continue;
        auto computed = compute_need(s);
        need_entries_ += computed.size();
        need_.emplace(s, std::move(computed));
        stack.pop_back();
    }
    return need_.at(sid);
}

std::unordered_map<i32, i64> CompletionSearch::compute_need(i32 sid) {
    const std::vector<i32>& item_next = e_.parse_.item_next();
    const std::vector<i32>& item_lhs = e_.parse_.item_lhs();
    using Entry = std::pair<i64, i32>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    if (sid == e_.parse_.initial()) heap.emplace(0, e_.spec_.start);
    for (const auto& item : e_.parse_.kernel(sid)) {
        const i32 sym = item_next[static_cast<std::size_t>(item.it)];
        if (sym < n_terms_) continue;
        const auto& origin = need_.at(item.org);
        auto base = origin.find(item_lhs[static_cast<std::size_t>(item.it)]);
        if (base != origin.end() && base->second < INF)
            heap.emplace(add(rest_[static_cast<std::size_t>(item.it) + 1], base->second), sym);
    }
    const Local& l = local(sid);
    std::unordered_map<i32, i64> dist;
    while (!heap.empty()) {
        const auto [d, nt] = heap.top();
        heap.pop();
        if (dist.count(nt)) continue;
        dist.emplace(nt, d);
        auto out = l.edges.find(nt);
        if (out == l.edges.end()) continue;
        for (const auto& [nxt, w] : out->second)
            if (!dist.count(nxt)) heap.emplace(add(d, w), nxt);
    }
    return dist;
}

i64 CompletionSearch::estimate(i32 sid) {
    auto found = estimate_.find(sid);
    if (found != estimate_.end()) return found->second;
    if (estimate_.size() > MEMO_SETS) {
        estimate_.clear();
        need_.clear();
        need_entries_ = 0;
    }
    if (e_.parse_.accepting(sid)) return estimate_[sid] = 0;
    const std::unordered_map<i32, i64> own = need(sid);  // a copy: need() may rehash need_
    const std::vector<i32>& item_next = e_.parse_.item_next();
    const std::vector<i32>& item_lhs = e_.parse_.item_lhs();
    i64 best = INF;
    for (const auto& item : e_.parse_.kernel(sid)) {
        if (item_next[static_cast<std::size_t>(item.it)] < 0) continue;
        const auto& origin = need_.at(item.org);
        auto base = origin.find(item_lhs[static_cast<std::size_t>(item.it)]);
        if (base != origin.end()) best = std::min(best, add(rest_[static_cast<std::size_t>(item.it)], base->second));
    }
    for (const auto& [lhs, cost] : local(sid).best) {
        auto base = own.find(lhs);
        if (base != own.end()) best = std::min(best, add(cost, base->second));
    }
    return estimate_[sid] = best;
}

i64 CompletionSearch::state_estimate(i32 state) {
    const Engine::Pairs pairs = e_.states_[static_cast<std::size_t>(state)];
    Lexer& lexer = e_.lexer_;
    ParseTable& parse = e_.parse_;
    i64 best = INF;
    for (const auto& [lex, sid] : pairs) {
        if (lexer.fresh(lex)) {
            best = std::min(best, estimate(sid));
            continue;
        }
        const std::vector<Lexer::Member> members = lexer.members(lex);
        for (const Lexer::Member& m : members) {
            const i32 term = m.t % n_terms_;
            if (!Bits::test(e_.bits_.get(parse.exp(sid)), term)) continue;
            const i32 after = parse.goto_(sid, term);
            if (after < 0) continue;
            const i64 d = paths(term).dist[static_cast<std::size_t>(m.q)];
            best = std::min(best, add(d, estimate(after)));
        }
    }
    return best;
}

void CompletionSearch::edges(i32 state, std::vector<std::string>& out) {
    out.clear();
    std::unordered_set<std::string> seen;
    auto put = [&](const std::string& piece) {
        if (!piece.empty() && seen.insert(piece).second) out.push_back(piece);
    };
    const Engine::Pairs pairs = e_.states_[static_cast<std::size_t>(state)];
    Lexer& lexer = e_.lexer_;
    ParseTable& parse = e_.parse_;
    const std::size_t w = e_.bits_.width();
    for (const auto& [lex, sid] : pairs) {
        const i32 exp = parse.exp(sid);
        const std::vector<Lexer::Member> members = lexer.members(lex);
        if (lexer.fresh(lex)) {
            for (const Lexer::Member& m : members) {
                const i32 term = m.t % n_terms_;
                if (Bits::test(e_.bits_.get(exp), term)) put(spell(term, 0));
            }
            continue;
        }
        for (const Lexer::Member& m : members) {
            const i32 term = m.t % n_terms_;
            const Dfa& d = e_.spec_.terms[static_cast<std::size_t>(term)].dfa;
            if (Bits::test(e_.bits_.get(exp), term) && !d.accept[static_cast<std::size_t>(m.q)]) put(spell(term, m.q));
        }
        std::vector<u64> ending(e_.bits_.get(lexer.accept_bits(lex)), e_.bits_.get(lexer.accept_bits(lex)) + w);
        const u64* e = e_.bits_.get(exp);
        for (std::size_t i = 0; i < w; ++i) ending[i] &= e[i];
        std::vector<i32> terms;
        Bits::for_each(ending.data(), w, [&](i32 t) { terms.push_back(t); });
        for (i32 term : terms) {
            const i32 after = parse.goto_(sid, term);
            if (after < 0) continue;
            std::vector<i32> next;
            Bits::for_each(e_.bits_.get(parse.exp(after)), w, [&](i32 t) { next.push_back(t); });
            for (i32 t : next) put(spell(t, 0));
            // An ignored lexeme (whitespace) may follow too: after SQL's keyword WITH the
            // identifier must be set apart ("WITHA" is one word), so " " is the way on.
            for (i32 t : e_.spec_.ignore) put(spell(t, 0));
        }
    }
}

std::optional<std::string> CompletionSearch::search(i32 state, i64 limit) {
    if (e_.complete_unlocked(state)) return std::string();
    const i64 h0 = state_estimate(state);
    if (h0 >= INF) return std::nullopt;
    std::unordered_map<i32, i64> cost{{state, 0}};
    std::unordered_map<i32, std::pair<i32, std::string>> parent{{state, {-1, std::string()}}};
    using Entry = std::tuple<i64, i64, i64, i32>;  // (f, -g, counter, state)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    heap.emplace(h0, 0, 0, state);
    i64 counter = 0;
    std::vector<std::string> pieces;
    while (!heap.empty()) {
        const auto [f, neg_g, order, current] = heap.top();
        heap.pop();
        const i64 g = -neg_g;
        if (g > cost[current]) continue;
        if (e_.complete_unlocked(current)) {
            std::vector<const std::string*> path;
            for (i32 at = current; at != state;) {
                const auto& step = parent.at(at);
                path.push_back(&step.second);
                at = step.first;
            }
            std::string result;
            for (auto it = path.rbegin(); it != path.rend(); ++it) result += **it;
            return result;
        }
        if (static_cast<i64>(parent.size()) > limit) return std::nullopt;
        edges(current, pieces);
        for (const std::string& piece : pieces) {
            const i32 nxt = e_.advance_bytes_unlocked(current, reinterpret_cast<const u8*>(piece.data()), piece.size());
            if (nxt < 0) continue;
            const i64 ng = g + static_cast<i64>(piece.size());
            auto known = cost.find(nxt);
            if (known != cost.end() && ng >= known->second) continue;
            const i64 h = state_estimate(nxt);
            if (h >= INF) continue;
            cost[nxt] = ng;
            parent[nxt] = {current, piece};
            heap.emplace(add(ng, h), -ng, ++counter, nxt);
        }
    }
    return std::nullopt;
}

std::size_t CompletionSearch::bytes() const {
    std::size_t total = rest_.size() * 8 + estimate_.size() * 32 + need_entries_ * 32 + need_.size() * 64;
    for (const auto& [k, s] : spelled_) total += s.size() + 48;
    for (const auto& [k, p] : paths_) total += p.dist.size() * 12 + 64;
    return total;
}

}  // namespace tg
