// See earley.hpp; each method mirrors its namesake in typedgen/runtime/earley.py.
#include "earley.hpp"

#include <algorithm>
#include <unordered_set>

namespace tg {

ParseTable::ParseTable(const GrammarSpec& g, BitPool& bits, Lexer& lexer)
    : g_(g), bits_(bits), lexer_(lexer), n_terms_(g.n_terms()), w_(bits.width()) {
    first_.resize(static_cast<std::size_t>(g.n_nonterminals));
    for (std::size_t p = 0; p < g.prod_lhs.size(); ++p) {
        i32 lhs = g.prod_lhs[p];
        const auto& rhs = g.prod_rhs[p];
        first_[static_cast<std::size_t>(lhs - n_terms_)].push_back(static_cast<i32>(item_next_.size()));
        for (std::size_t dot = 0; dot <= rhs.size(); ++dot) {
            item_next_.push_back(dot < rhs.size() ? rhs[dot] : -1);
            item_lhs_.push_back(lhs);
        }
        if (lhs == g.start) final_item_ = static_cast<i32>(item_next_.size()) - 1;
    }
    // Nullable symbols (a fixpoint over productions).
    nullable_.assign(static_cast<std::size_t>(n_terms_ + g.n_nonterminals), 0);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t p = 0; p < g.prod_lhs.size(); ++p) {
            i32 lhs = g.prod_lhs[p];
            if (nullable_[static_cast<std::size_t>(lhs)]) continue;
            bool all = true;
            for (i32 s : g.prod_rhs[p]) all = all && nullable_[static_cast<std::size_t>(s)];
            if (all) nullable_[static_cast<std::size_t>(lhs)] = changed = true;
        }
    }
    is_ignore_.assign(static_cast<std::size_t>(n_terms_), 0);
    std::vector<u64> ign(w_, 0);
    for (i32 t : g.ignore) {
        is_ignore_[static_cast<std::size_t>(t)] = 1;
        Bits::set(ign.data(), t);
    }
    ignore_bits_ = bits_.intern(ign);
    std::vector<i32> predicted = prediction(g.start).nts;
    initial_ = intern({}, std::move(predicted));
}

const ParseTable::Prediction& ParseTable::prediction(i32 nt) {
    auto found = pred_.find(nt);
    if (found != pred_.end()) return found->second;
    std::unordered_set<i32> items;
    std::unordered_set<i32> nts{nt};
    std::vector<i32> stack{nt};
    while (!stack.empty()) {
        i32 top = stack.back();
        stack.pop_back();
        for (i32 it : first_[static_cast<std::size_t>(top - n_terms_)]) {
            while (!items.count(it)) {
                items.insert(it);
                i32 sym = item_next_[static_cast<std::size_t>(it)];
                if (sym < n_terms_) break;  // a terminal, or the end of the production
                if (!nts.count(sym)) {
                    nts.insert(sym);
                    stack.push_back(sym);
                }
                if (!nullable_[static_cast<std::size_t>(sym)]) break;
                ++it;
            }
        }
    }
    Prediction p;
    p.items.assign(items.begin(), items.end());
    p.nts.assign(nts.begin(), nts.end());
    std::sort(p.items.begin(), p.items.end());
    std::sort(p.nts.begin(), p.nts.end());
    bytes_ += (p.items.size() + p.nts.size()) * 4 + 64;
    return pred_.emplace(nt, std::move(p)).first->second;
}

i32 ParseTable::local_of(const std::vector<i32>& predicted) {
    auto found = local_index_.find(predicted);
    if (found != local_index_.end()) return found->second;
    std::vector<i32> items;
    for (i32 nt : predicted) {
        const Prediction& p = prediction(nt);
        items.insert(items.end(), p.items.begin(), p.items.end());
    }
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    Local local;
    std::vector<u64> exp(w_, 0);
    for (i32 it : items) {
        i32 sym = item_next_[static_cast<std::size_t>(it)];
        if (sym >= 0) {
            local.waiting.emplace_back(sym, it);
            if (sym < n_terms_) Bits::set(exp.data(), sym);
        } else if (it == final_item_) {
            local.final = true;
        }
    }
    std::sort(local.waiting.begin(), local.waiting.end());
    local.exp = bits_.intern(exp);
    i32 id = static_cast<i32>(locals_.size());
    bytes_ += local.waiting.size() * 8 + predicted.size() * 8 + 96;
    locals_.push_back(std::move(local));
    local_index_.emplace(predicted, id);
    return id;
}

void ParseTable::waiting(i32 sid, i32 sym, std::vector<Item>& out) const {
    const Set& s = sets_[static_cast<std::size_t>(sid)];
    const Local& local = locals_[static_cast<std::size_t>(s.local)];
    auto lo = std::lower_bound(local.waiting.begin(), local.waiting.end(), std::make_pair(sym, INT32_MIN));
    for (auto it = lo; it != local.waiting.end() && it->first == sym; ++it) out.push_back({it->second, sid});
    auto klo = std::lower_bound(s.kernel_waiting.begin(), s.kernel_waiting.end(), sym,
                                [](const std::pair<i32, Item>& a, i32 v) { return a.first < v; });
    for (auto it = klo; it != s.kernel_waiting.end() && it->first == sym; ++it) out.push_back(it->second);
}

void ParseTable::closure(std::vector<Item> stack, std::vector<Item>& kernel, std::vector<i32>& predicted) {
    // Kernels are small: a linear membership test beats hashing until they are not.
    std::unordered_set<u64, U64Hash> seen;
    bool hashed = false;
    std::vector<i32> pred_syms;  // nonterminals whose predictions were added
    std::vector<Item> buf;
    auto contains = [&](const Item& item) {
        if (hashed) return seen.count(key2(item.it, item.org)) != 0;
        for (const Item& k : kernel)
            if (k == item) return true;
        return false;
    };
    while (!stack.empty()) {
        Item item = stack.back();
        stack.pop_back();
        if (contains(item)) continue;
        kernel.push_back(item);
        if (hashed) {
            seen.insert(key2(item.it, item.org));
        } else if (kernel.size() > 32) {
            hashed = true;
            for (const Item& k : kernel) seen.insert(key2(k.it, k.org));
        }
        i32 sym = item_next_[static_cast<std::size_t>(item.it)];
        if (sym < 0) {
            buf.clear();
            waiting(item.org, item_lhs_[static_cast<std::size_t>(item.it)], buf);
            for (const Item& w : buf) stack.push_back({w.it + 1, w.org});
        } else if (sym >= n_terms_) {
            if (std::find(pred_syms.begin(), pred_syms.end(), sym) == pred_syms.end()) {
                pred_syms.push_back(sym);
                const std::vector<i32>& nts = prediction(sym).nts;
                predicted.insert(predicted.end(), nts.begin(), nts.end());
            }
            if (nullable_[static_cast<std::size_t>(sym)]) stack.push_back({item.it + 1, item.org});
        }
    }
    std::sort(kernel.begin(), kernel.end());
    std::sort(predicted.begin(), predicted.end());
    predicted.erase(std::unique(predicted.begin(), predicted.end()), predicted.end());
}

i32 ParseTable::intern(std::vector<Item>&& kernel, std::vector<i32>&& predicted) {
    u64 h = hash_vec(predicted, hash_vec(kernel));
    auto& bucket = index_[h];
    for (i32 sid : bucket) {
        const Set& s = sets_[static_cast<std::size_t>(sid)];
        if (s.kernel == kernel && s.predicted == predicted) return sid;
    }
    i32 sid = static_cast<i32>(sets_.size());
    Set s;
    s.local = local_of(predicted);
    const Local& local = locals_[static_cast<std::size_t>(s.local)];
    std::vector<u64> exp(bits_.get(ignore_bits_), bits_.get(ignore_bits_) + w_);
    const u64* lexp = bits_.get(local.exp);
    for (std::size_t i = 0; i < w_; ++i) exp[i] |= lexp[i];
    s.accepting = sid == 0 && local.final;
    for (const Item& item : kernel) {
        i32 sym = item_next_[static_cast<std::size_t>(item.it)];
        if (sym >= 0) {
            s.kernel_waiting.emplace_back(sym, item);
            if (sym < n_terms_) Bits::set(exp.data(), sym);
        } else if (item.it == final_item_ && item.org == 0) {
            s.accepting = true;
        }
    }
    std::sort(s.kernel_waiting.begin(), s.kernel_waiting.end(),
              [](const std::pair<i32, Item>& a, const std::pair<i32, Item>& b) {
                  return a.first != b.first ? a.first < b.first : a.second < b.second;
              });
    s.exp = bits_.intern(exp);
    s.kernel = std::move(kernel);
    s.predicted = std::move(predicted);
    bytes_ += s.kernel.size() * 24 + s.predicted.size() * 4 + 128;
    sets_.push_back(std::move(s));
    // `bucket` may dangle if index_ rehashed inside local_of/intern: look it up again.
    index_[h].push_back(sid);
    return sid;
}

i32 ParseTable::goto_(i32 sid, i32 term) {
    u64 key = key2(sid, term);
    if (const i32* found = goto_memo_.find(key)) return *found;
    std::vector<Item> seeds;
    waiting(sid, term, seeds);
    for (Item& s : seeds) s.it += 1;
    i32 result = -1;
    if (!seeds.empty()) {
        std::vector<Item> kernel;
        std::vector<i32> predicted;
        closure(std::move(seeds), kernel, predicted);
        result = intern(std::move(kernel), std::move(predicted));
    }
    if (is_ignore_[static_cast<std::size_t>(term)]) result = result < 0 ? sid : merge({sid, result});
    goto_memo_.put(key, result);
    bytes_ += 32;
    return result;
}

i32 ParseTable::merge(std::vector<i32> ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (ids.size() == 1) return ids[0];
    auto found = merge_memo_.find(ids);
    if (found != merge_memo_.end()) return found->second;
    std::vector<Item> kernel;
    std::vector<i32> predicted;
    for (i32 sid : ids) {
        const Set& s = sets_[static_cast<std::size_t>(sid)];
        kernel.insert(kernel.end(), s.kernel.begin(), s.kernel.end());
        predicted.insert(predicted.end(), s.predicted.begin(), s.predicted.end());
    }
    std::sort(kernel.begin(), kernel.end());
    kernel.erase(std::unique(kernel.begin(), kernel.end()), kernel.end());
    std::sort(predicted.begin(), predicted.end());
    predicted.erase(std::unique(predicted.begin(), predicted.end()), predicted.end());
    i32 result = intern(std::move(kernel), std::move(predicted));
    bytes_ += ids.size() * 4 + 48;
    merge_memo_.emplace(std::move(ids), result);
    return result;
}

i32 ParseTable::step(i32 sid, i32 event) {
    u64 key = key2(sid, event);
    if (const i32* found = step_memo_.find(key)) return *found;
    LexEvent ev = lexer_.event(event);
    i32 result = -1;
    if (!bits_.intersects(ev.blockers, exp(sid))) {
        std::vector<u64> cands(bits_.get(ev.ends), bits_.get(ev.ends) + w_);
        const u64* e = bits_.get(exp(sid));
        for (std::size_t i = 0; i < w_; ++i) cands[i] &= e[i];
        std::vector<i32> targets;
        Bits::for_each(cands.data(), w_, [&](i32 t) {
            i32 nxt = goto_(sid, t);
            if (nxt >= 0) targets.push_back(nxt);
        });
        if (!targets.empty()) result = merge(std::move(targets));
    }
    step_memo_.put(key, result);
    bytes_ += 32;
    return result;
}

}  // namespace tg
