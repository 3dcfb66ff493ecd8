// See automata.hpp. Every function mirrors its namesake in typedgen/compiler/automata.py.
#include "automata.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace tg {

namespace {

constexpr i32 MAX_CODEPOINT = 0x10FFFF;
constexpr i32 DEFAULT_STATE_BUDGET = 20000;

// ---------------------------------------------------------------------------------------------
// The serialised expression, parsed into nodes (index = pre-order position).
struct Node {
    i32 op = 0;
    i32 a = 0, b = 0;            // REPEAT min/max, REF index
    std::vector<u8> bytes;       // LIT
    std::vector<std::pair<i32, i32>> ranges;  // CLASS
    std::vector<i32> kids;
};

class Program {
  public:
    Program(const std::vector<i32>& prog, std::size_t n_refs) : prog_(prog), n_refs_(n_refs) {
        std::size_t pos = 0;
        parse(pos, 0);
        if (pos != prog_.size()) throw InputError("trailing data after the expression");
    }
    const Node& node(i32 i) const { return nodes_[static_cast<std::size_t>(i)]; }

  private:
    i32 next(std::size_t& pos) {
        if (pos >= prog_.size()) throw InputError("truncated expression program");
        return prog_[pos++];
    }
    i32 parse(std::size_t& pos, int depth) {
        if (depth > 10000)
            throw BudgetError("dfa-budget", "terminal expression nested more than 10000 levels deep",
                              static_cast<i64>(nodes_.size()), 0);
        i32 id = static_cast<i32>(nodes_.size());
        nodes_.emplace_back();
        Node nd;
        nd.op = next(pos);
        switch (nd.op) {
            case OP_LIT: {
                i32 n = next(pos);
                if (n < 0) throw InputError("negative literal length");
                for (i32 i = 0; i < n; ++i) {
                    i32 v = next(pos);
                    if (v < 0 || v > 255) throw InputError("literal byte out of range");
                    nd.bytes.push_back(static_cast<u8>(v));
                }
                break;
            }
            case OP_CLASS: {
                i32 k = next(pos);
                if (k < 0) throw InputError("negative range count");
                for (i32 i = 0; i < k; ++i) {
                    i32 lo = next(pos), hi = next(pos);
                    if (lo < 0 || hi > MAX_CODEPOINT || lo > hi)
                        throw InputError("code point range out of order or out of Unicode");
                    nd.ranges.emplace_back(lo, hi);
                }
                break;
            }
            case OP_SEQ:
            case OP_ALT:
            case OP_INTERSECT: {
                i32 k = next(pos);
                if (k < 0) throw InputError("negative child count");
                for (i32 i = 0; i < k; ++i) nd.kids.push_back(parse(pos, depth + 1));
                if (nd.op == OP_INTERSECT && k == 0) throw InputError("empty intersection");
                break;
            }
            case OP_REPEAT: {
                nd.a = next(pos);
                nd.b = next(pos);
                if (nd.a < 0 || (nd.b >= 0 && nd.b < nd.a) || nd.b < -1)
                    throw InputError("bad repetition bounds");
                nd.kids.push_back(parse(pos, depth + 1));
                break;
            }
            case OP_REF: {
                nd.a = next(pos);
                check_index(nd.a, static_cast<i64>(n_refs_), "reference");
                break;
            }
            case OP_COMPLEMENT:
                nd.kids.push_back(parse(pos, depth + 1));
                break;
            default:
                throw InputError("unknown expression opcode " + std::to_string(nd.op));
        }
        nodes_[static_cast<std::size_t>(id)] = std::move(nd);
        return id;
    }
    const std::vector<i32>& prog_;
    std::size_t n_refs_;
    std::vector<Node> nodes_;
};

// ---------------------------------------------------------------------------------------------
// UTF-8 splitting of code point ranges (compiler/utf8.py).
using ByteSeq = std::vector<std::pair<int, int>>;

int utf8_encode(i32 cp, u8* out) {
    if (cp < 0x80) {
        out[0] = static_cast<u8>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<u8>(0xC0 | (cp >> 6));
        out[1] = static_cast<u8>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<u8>(0xE0 | (cp >> 12));
        out[1] = static_cast<u8>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<u8>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<u8>(0xF0 | (cp >> 18));
    out[1] = static_cast<u8>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<u8>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<u8>(0x80 | (cp & 0x3F));
    return 4;
}

void utf8_split(i32 lo, i32 hi, std::vector<ByteSeq>& out) {
    static const i32 max_by_len[4] = {0x7F, 0x7FF, 0xFFFF, 0x10FFFF};
    for (i32 m : max_by_len) {
        if (lo <= m && m < hi) {
            utf8_split(lo, m, out);
            utf8_split(m + 1, hi, out);
            return;
        }
    }
    if (hi < 0x80) {
        out.push_back({{lo, hi}});
        return;
    }
    u8 a[4], b[4];
    int n = utf8_encode(lo, a);
    for (int i = 1; i < n; ++i) {
        i32 mask = (1 << (6 * i)) - 1;
        if ((lo & ~mask) != (hi & ~mask)) {
            if ((lo & mask) != 0) {
                utf8_split(lo, lo | mask, out);
                utf8_split((lo | mask) + 1, hi, out);
                return;
            }
            if ((hi & mask) != mask) {
                utf8_split(lo, (hi & ~mask) - 1, out);
                utf8_split(hi & ~mask, hi, out);
                return;
            }
        }
    }
    utf8_encode(hi, b);
    ByteSeq seq;
    for (int i = 0; i < n; ++i) seq.emplace_back(a[i], b[i]);
    out.push_back(std::move(seq));
}

// ---------------------------------------------------------------------------------------------
struct Edge {
    int lo, hi;
    i32 to;
};

class Nfa {
  public:
    explicit Nfa(i32 budget) : budget_(budget) {}
    i32 state() {
        eps.emplace_back();
        edges.emplace_back();
        if (static_cast<i64>(eps.size()) > static_cast<i64>(budget_) * 8) {
            throw BudgetError("nfa-budget", "terminal automaton exceeds " +
                                                std::to_string(static_cast<i64>(budget_) * 8) +
                                                " NFA states");
        }
        return static_cast<i32>(eps.size()) - 1;
    }
    std::pair<i32, i32> embed(const Dfa& d) {
        std::vector<i32> base(static_cast<std::size_t>(d.n));
        for (i32 q = 0; q < d.n; ++q) base[static_cast<std::size_t>(q)] = state();
        i32 end = state();
        for (i32 q = 0; q < d.n; ++q) {
            int b = 0;
            while (b < 256) {
                i32 t = d.at(q, b);
                int e = b;
                while (e + 1 < 256 && d.at(q, e + 1) == t) ++e;
                if (t >= 0) edges[static_cast<std::size_t>(base[q])].push_back({b, e, base[t]});
                b = e + 1;
            }
            if (d.accept[static_cast<std::size_t>(q)]) eps[static_cast<std::size_t>(base[q])].push_back(end);
        }
        return {base[0], end};
    }
    std::vector<std::vector<i32>> eps;
    std::vector<std::vector<Edge>> edges;

  private:
    i32 budget_;
};

// The epsilon closure of `states` into `out`, sorted. `seen` is all zero on entry and on exit;
// `stack` is scratch space (both reused across calls: closures are the subset construction's
// inner loop).
void eps_closure(const Nfa& nfa, const std::vector<i32>& states, std::vector<u8>& seen,
                 std::vector<i32>& stack, std::vector<i32>& out) {
    out.clear();
    stack.clear();
    for (i32 q : states) {
        if (!seen[static_cast<std::size_t>(q)]) {
            seen[static_cast<std::size_t>(q)] = 1;
            out.push_back(q);
            stack.push_back(q);
        }
    }
    while (!stack.empty()) {
        i32 q = stack.back();
        stack.pop_back();
        for (i32 t : nfa.eps[static_cast<std::size_t>(q)]) {
            if (!seen[static_cast<std::size_t>(t)]) {
                seen[static_cast<std::size_t>(t)] = 1;
                out.push_back(t);
                stack.push_back(t);
            }
        }
    }
    for (i32 q : out) seen[static_cast<std::size_t>(q)] = 0;
    std::sort(out.begin(), out.end());
}

BudgetError dfa_budget(i32 budget, i64 node, const std::string& hint_kind) {
    return BudgetError("dfa-budget",
                       "terminal automaton exceeds the budget of " + std::to_string(budget) +
                           " states",
                       node, hint_kind == "determinize" ? 0 : 1);
}

// A DFA whose columns are byte classes: trans is n x n_cls, cls maps a byte to its class.
struct CDfa {
    i32 n = 0;
    i32 n_cls = 0;
    std::vector<i32> trans;
    std::vector<u8> accept;
    std::array<int, 256> cls{};
    i32 at(i32 q, int c) const { return trans[static_cast<std::size_t>(q) * static_cast<std::size_t>(n_cls) + static_cast<std::size_t>(c)]; }
};

CDfa minimized_c(const CDfa& d);

Dfa expand(const CDfa& c) {
    Dfa d;
    d.n = c.n;
    d.trans.resize(static_cast<std::size_t>(c.n) * 256);
    for (i32 q = 0; q < c.n; ++q)
        for (int b = 0; b < 256; ++b) d.trans[static_cast<std::size_t>(q) * 256 + static_cast<std::size_t>(b)] = c.at(q, c.cls[static_cast<std::size_t>(b)]);
    d.accept = c.accept;
    return d;
}

Dfa determinize(const Nfa& nfa, i32 start, i32 end, i32 budget, i64 node) {
    // Byte classes from every edge boundary of the NFA: within a class every edge agrees, so
    // the subset construction works per class (the same DFA as per byte interval, in the same
    // state order, since classes refine each state's intervals in ascending byte order).
    std::array<u8, 257> cut{};
    cut[0] = 1;
    for (const auto& list : nfa.edges)
        for (const Edge& e : list) {
            cut[static_cast<std::size_t>(e.lo)] = 1;
            cut[static_cast<std::size_t>(e.hi) + 1] = 1;
        }
    CDfa out;
    std::vector<int> cls_lo;  // first byte of each class
    for (int b = 0, c = -1; b < 256; ++b) {
        if (cut[static_cast<std::size_t>(b)]) {
            ++c;
            cls_lo.push_back(b);
        }
        out.cls[static_cast<std::size_t>(b)] = c;
    }
    const int n_cls = static_cast<int>(cls_lo.size());
    out.n_cls = n_cls;
    std::vector<u8> seen(nfa.eps.size(), 0);
    std::vector<i32> stack, closure;
    std::vector<std::vector<i32>> sets;
    std::unordered_map<std::vector<i32>, i32, VecHash> index;
    // The DFA state reached from a set of NFA targets before its closure: most (state, class)
    // pairs of a UTF-8 class reach a handful of target sets, so each closure is computed once.
    std::unordered_map<std::vector<i32>, i32, VecHash> by_targets;
    eps_closure(nfa, {start}, seen, stack, closure);
    sets.push_back(closure);
    index.emplace(sets[0], 0);
    std::vector<std::vector<i32>> targets(static_cast<std::size_t>(n_cls));
    std::vector<int> touched;
    std::vector<i32> current;
    for (std::size_t i = 0; i < sets.size(); ++i) {
        touched.clear();
        current = sets[i];  // a copy: `sets` grows below
        for (i32 q : current) {
            for (const Edge& e : nfa.edges[static_cast<std::size_t>(q)]) {
                for (int c = out.cls[static_cast<std::size_t>(e.lo)]; c <= out.cls[static_cast<std::size_t>(e.hi)]; ++c) {
                    auto& t = targets[static_cast<std::size_t>(c)];
                    if (t.empty()) touched.push_back(c);
                    t.push_back(e.to);
                }
            }
        }
        std::sort(touched.begin(), touched.end());
        const std::size_t row0 = out.trans.size();
        out.trans.resize(row0 + static_cast<std::size_t>(n_cls), -1);
        for (int c : touched) {
            auto& raw = targets[static_cast<std::size_t>(c)];
            std::sort(raw.begin(), raw.end());
            raw.erase(std::unique(raw.begin(), raw.end()), raw.end());
            i32 target;
            auto memo = by_targets.find(raw);
            if (memo != by_targets.end()) {
                target = memo->second;
            } else {
                eps_closure(nfa, raw, seen, stack, closure);
                auto found = index.find(closure);
                if (found == index.end()) {
                    target = static_cast<i32>(sets.size());
                    index.emplace(closure, target);
                    sets.push_back(closure);
                    if (static_cast<i64>(sets.size()) > budget) throw dfa_budget(budget, node, "determinize");
                } else {
                    target = found->second;
                }
                by_targets.emplace(raw, target);
            }
            raw.clear();
            out.trans[row0 + static_cast<std::size_t>(c)] = target;
        }
    }
    out.n = static_cast<i32>(sets.size());
    out.accept.resize(sets.size());
    for (std::size_t i = 0; i < sets.size(); ++i)
        out.accept[i] = std::binary_search(sets[i].begin(), sets[i].end(), end) ? 1 : 0;
    return expand(minimized_c(out));
}

Dfa product(const Dfa& a, const Dfa& b, bool both, i32 budget) {
    std::unordered_map<u64, i32, U64Hash> index;
    std::vector<std::pair<i32, i32>> pairs{{0, 0}};
    index.emplace(key2(0, 0), 0);
    std::vector<i32> rows;
    const i64 na = a.n, nb = b.n;
    std::vector<i64> keys(256);
    std::vector<u8> valid(256);
    std::vector<i64> uniq;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        auto [qa, qb] = pairs[i];
        std::vector<i32> row(256, -1);
        uniq.clear();
        for (int c = 0; c < 256; ++c) {
            i32 ra = qa >= 0 ? a.at(qa, c) : -1;
            i32 rb = qb >= 0 ? b.at(qb, c) : -1;
            bool ok = both ? (ra >= 0 && rb >= 0) : (ra >= 0 || rb >= 0);
            valid[static_cast<std::size_t>(c)] = ok;
            keys[static_cast<std::size_t>(c)] = (ra < 0 ? na : ra) * (nb + 1) + (rb < 0 ? nb : rb);
            if (ok) uniq.push_back(keys[static_cast<std::size_t>(c)]);
        }
        std::sort(uniq.begin(), uniq.end());
        uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
        for (i64 key : uniq) {
            i64 pa = key / (nb + 1), pb = key % (nb + 1);
            std::pair<i32, i32> pr{pa == na ? -1 : static_cast<i32>(pa), pb == nb ? -1 : static_cast<i32>(pb)};
            u64 k = key2(pr.first, pr.second);
            auto found = index.find(k);
            i32 target;
            if (found == index.end()) {
                target = static_cast<i32>(pairs.size());
                index.emplace(k, target);
                pairs.push_back(pr);
                if (static_cast<i64>(pairs.size()) > budget)
                    throw BudgetError("dfa-budget",
                                      "automaton exceeds " + std::to_string(budget) + " states");
            } else {
                target = found->second;
            }
            for (int c = 0; c < 256; ++c)
                if (valid[static_cast<std::size_t>(c)] && keys[static_cast<std::size_t>(c)] == key)
                    row[static_cast<std::size_t>(c)] = target;
        }
        rows.insert(rows.end(), row.begin(), row.end());
    }
    Dfa d;
    d.n = static_cast<i32>(pairs.size());
    d.trans = std::move(rows);
    d.accept.resize(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        auto [qa, qb] = pairs[i];
        bool xa = qa >= 0 && a.accept[static_cast<std::size_t>(qa)];
        bool xb = qb >= 0 && b.accept[static_cast<std::size_t>(qb)];
        d.accept[i] = both ? (xa && xb) : (xa || xb);
    }
    return d;
}

bool prefix_free(const Dfa& d) {
    for (i32 q = 0; q < d.n; ++q) {
        if (!d.accept[static_cast<std::size_t>(q)]) continue;
        for (int b = 0; b < 256; ++b)
            if (d.at(q, b) >= 0) return false;
    }
    return true;
}

Dfa chain(const Dfa& item, i32 lo, i32 hi, i32 budget, i64 node) {
    std::vector<i32> core;
    for (i32 q = 0; q < item.n; ++q)
        if (!item.accept[static_cast<std::size_t>(q)]) core.push_back(q);
    const i64 k = static_cast<i64>(core.size());
    const i64 total = static_cast<i64>(hi) * k + 1;
    if (total > budget) {
        throw BudgetError("dfa-budget",
                          "terminal automaton exceeds the budget of " + std::to_string(budget) +
                              " states (" + std::to_string(hi) + " repetitions of " +
                              std::to_string(k) + " states)",
                          node, 1);
    }
    std::vector<i64> remap(static_cast<std::size_t>(item.n), -1);
    for (i64 j = 0; j < k; ++j) remap[static_cast<std::size_t>(core[static_cast<std::size_t>(j)])] = j;
    for (i32 q = 0; q < item.n; ++q)
        if (item.accept[static_cast<std::size_t>(q)]) remap[static_cast<std::size_t>(q)] = k;
    Dfa d;
    d.n = static_cast<i32>(total);
    d.trans.assign(static_cast<std::size_t>(total) * 256, -1);
    for (i64 i = 0; i < hi; ++i) {
        for (i64 j = 0; j < k; ++j) {
            i32 q = core[static_cast<std::size_t>(j)];
            for (int b = 0; b < 256; ++b) {
                i32 t = item.at(q, b);
                i64 local = t >= 0 ? remap[static_cast<std::size_t>(t)] : -1;
                d.trans[static_cast<std::size_t>((i * k + j) * 256 + b)] =
                    local >= 0 ? static_cast<i32>(local + i * k) : -1;
            }
        }
    }
    d.accept.assign(static_cast<std::size_t>(total), 0);
    for (i64 i = lo; i <= hi; ++i) d.accept[static_cast<std::size_t>(i * k)] = 1;
    return d;
}

bool concat(const Dfa& left, const Dfa& right, Dfa& out) {
    const i32 n = left.n;
    std::vector<i32> start_row(256);
    for (int b = 0; b < 256; ++b) {
        i32 t = right.at(0, b);
        start_row[static_cast<std::size_t>(b)] = t >= 0 ? t + n : -1;
    }
    out.n = left.n + right.n;
    out.trans = left.trans;
    out.trans.reserve(static_cast<std::size_t>(out.n) * 256);
    for (i32 t : right.trans) out.trans.push_back(t >= 0 ? t + n : -1);
    out.accept.assign(static_cast<std::size_t>(n), 0);
    out.accept.insert(out.accept.end(), right.accept.begin(), right.accept.end());
    for (i32 q = 0; q < n; ++q) {
        if (!left.accept[static_cast<std::size_t>(q)]) continue;
        for (int b = 0; b < 256; ++b)
            if (left.at(q, b) >= 0 && start_row[static_cast<std::size_t>(b)] >= 0) return false;
    }
    for (i32 q = 0; q < n; ++q) {
        if (!left.accept[static_cast<std::size_t>(q)]) continue;
        for (int b = 0; b < 256; ++b) {
            std::size_t at = static_cast<std::size_t>(q) * 256 + static_cast<std::size_t>(b);
            if (out.trans[at] < 0) out.trans[at] = start_row[static_cast<std::size_t>(b)];
        }
        out.accept[static_cast<std::size_t>(q)] = right.accept[0];
    }
    return true;
}

Dfa complement_utf8(const Dfa& d, i32 budget) {
    const i32 n = d.n;
    Dfa flipped;
    flipped.n = n + 1;
    flipped.trans.resize(static_cast<std::size_t>(n + 1) * 256);
    for (std::size_t i = 0; i < d.trans.size(); ++i) flipped.trans[i] = d.trans[i] < 0 ? n : d.trans[i];
    for (int b = 0; b < 256; ++b) flipped.trans[static_cast<std::size_t>(n) * 256 + static_cast<std::size_t>(b)] = n;
    flipped.accept.resize(static_cast<std::size_t>(n + 1));
    for (i32 q = 0; q < n; ++q) flipped.accept[static_cast<std::size_t>(q)] = d.accept[static_cast<std::size_t>(q)] ? 0 : 1;
    flipped.accept[static_cast<std::size_t>(n)] = 1;
    return minimized(product(flipped, utf8_text_dfa(), true, budget));
}

class Builder {
  public:
    Builder(const Program& prog, const std::vector<Dfa>& refs, i32 budget)
        : prog_(prog), refs_(refs), budget_(budget) {}

    Dfa build(i32 id) {
        Dfa direct;
        if (try_direct(id, direct)) return direct;
        if (literal_alternation(id, direct)) return direct;
        Nfa nfa(budget_);
        auto [s, e] = frag(nfa, id);
        return determinize(nfa, s, e, budget_, id);
    }

  private:
    bool is_counted(const Node& nd) const { return nd.op == OP_REPEAT && nd.b >= 8; }

    // An alternation of literals (an enum) determinises into the trie of the literals, in
    // breadth-first order with children by ascending byte: exactly the subset construction's
    // states and order, built without the NFA.
    bool literal_alternation(i32 id, Dfa& out) {
        const Node& nd = prog_.node(id);
        if (nd.op != OP_ALT || nd.kids.empty()) return false;
        std::vector<const std::vector<u8>*> lits;
        for (i32 k : nd.kids) {
            const Node& c = prog_.node(k);
            if (c.op != OP_LIT) return false;
            lits.push_back(&c.bytes);
        }
        CDfa d;
        std::array<u8, 257> cut{};
        cut[0] = 1;
        for (const auto* l : lits)
            for (u8 b : *l) {
                cut[b] = 1;
                cut[static_cast<std::size_t>(b) + 1] = 1;
            }
        for (int b = 0, c = -1; b < 256; ++b) {
            if (cut[static_cast<std::size_t>(b)]) ++c;
            d.cls[static_cast<std::size_t>(b)] = c;
        }
        d.n_cls = d.cls[255] + 1;
        const std::size_t C = static_cast<std::size_t>(d.n_cls);
        // A trie node: the literals through it (their position is the node's depth).
        std::vector<std::vector<i32>> nodes;
        std::vector<i32> depth;
        std::vector<i32> all(lits.size());
        for (std::size_t i = 0; i < lits.size(); ++i) all[i] = static_cast<i32>(i);
        nodes.push_back(std::move(all));
        depth.push_back(0);
        for (std::size_t q = 0; q < nodes.size(); ++q) {
            const std::size_t row0 = d.trans.size();
            d.trans.resize(row0 + C, -1);
            bool acc = false;
            std::vector<std::pair<int, i32>> next;  // (byte, literal)
            const i32 pos = depth[q];
            for (i32 li : nodes[q]) {
                const auto& l = *lits[static_cast<std::size_t>(li)];
                if (static_cast<std::size_t>(pos) == l.size()) acc = true;
                else next.emplace_back(l[static_cast<std::size_t>(pos)], li);
            }
            d.accept.push_back(acc ? 1 : 0);
            std::stable_sort(next.begin(), next.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            std::size_t i = 0;
            while (i < next.size()) {
                std::size_t j = i;
                std::vector<i32> members;
                while (j < next.size() && next[j].first == next[i].first) members.push_back(next[j++].second);
                i32 target = static_cast<i32>(nodes.size());
                // The trie is bounded like an NFA; the state budget applies to the minimal DFA.
                if (static_cast<i64>(target) + 1 > static_cast<i64>(budget_) * 8) {
                    throw BudgetError("nfa-budget",
                                      "terminal automaton exceeds " +
                                          std::to_string(static_cast<i64>(budget_) * 8) +
                                          " NFA states",
                                      id, 0);
                }
                // Bytes in one class share one column; literal bytes are their own class.
                d.trans[row0 + static_cast<std::size_t>(d.cls[static_cast<std::size_t>(next[i].first)])] = target;
                nodes.push_back(std::move(members));
                depth.push_back(pos + 1);
                i = j;
            }
            std::vector<i32>().swap(nodes[q]);
        }
        d.n = static_cast<i32>(nodes.size());
        CDfa small = minimized_c(d);
        if (small.n > budget_) throw dfa_budget(budget_, id, "determinize");
        out = expand(small);
        return true;
    }

    bool try_direct(i32 id, Dfa& out) {
        const Node& nd = prog_.node(id);
        if (nd.op == OP_REF) {
            out = refs_[static_cast<std::size_t>(nd.a)];
            return true;
        }
        if (nd.op == OP_REPEAT) {
            if (nd.b < 0 || nd.b < 8) return false;
            Dfa item = build(nd.kids[0]);
            if (item.accepts_empty() || !prefix_free(item)) return false;
            out = chain(item, nd.a, nd.b, budget_, id);
            return true;
        }
        if (nd.op == OP_SEQ) {
            bool any = false;
            for (i32 k : nd.kids) {
                const Node& c = prog_.node(k);
                if (c.op == OP_REF || is_counted(c)) any = true;
            }
            if (!any) return false;
            std::vector<Dfa> parts;
            for (i32 k : nd.kids) parts.push_back(build(k));
            Dfa acc = parts[0];
            for (std::size_t i = 1; i < parts.size(); ++i) {
                Dfa joined;
                if (!concat(acc, parts[i], joined)) return false;
                acc = std::move(joined);
            }
            if (acc.n > budget_) {
                throw BudgetError("dfa-budget",
                                  "terminal automaton exceeds the budget of " +
                                      std::to_string(budget_) + " states",
                                  id, 1);
            }
            out = trimmed(acc);
            return true;
        }
        return false;
    }

    std::pair<i32, i32> frag(Nfa& nfa, i32 id) {
        const Node& nd = prog_.node(id);
        switch (nd.op) {
            case OP_LIT: {
                i32 start = nfa.state(), cur = start;
                for (u8 b : nd.bytes) {
                    i32 nxt = nfa.state();
                    nfa.edges[static_cast<std::size_t>(cur)].push_back({b, b, nxt});
                    cur = nxt;
                }
                return {start, cur};
            }
            case OP_CLASS: {
                i32 start = nfa.state(), end = nfa.state();
                std::vector<ByteSeq> seqs;
                for (auto [lo, hi] : nd.ranges) {
                    seqs.clear();
                    utf8_split(lo, hi, seqs);
                    for (const ByteSeq& seq : seqs) {
                        i32 cur = start;
                        for (std::size_t i = 0; i < seq.size(); ++i) {
                            i32 nxt = i + 1 == seq.size() ? end : nfa.state();
                            nfa.edges[static_cast<std::size_t>(cur)].push_back({seq[i].first, seq[i].second, nxt});
                            cur = nxt;
                        }
                    }
                }
                return {start, end};
            }
            case OP_SEQ: {
                i32 start = nfa.state(), cur = start;
                for (i32 k : nd.kids) {
                    auto [s, e] = frag(nfa, k);
                    nfa.eps[static_cast<std::size_t>(cur)].push_back(s);
                    cur = e;
                }
                return {start, cur};
            }
            case OP_ALT: {
                i32 start = nfa.state(), end = nfa.state();
                for (i32 k : nd.kids) {
                    auto [s, e] = frag(nfa, k);
                    nfa.eps[static_cast<std::size_t>(start)].push_back(s);
                    nfa.eps[static_cast<std::size_t>(e)].push_back(end);
                }
                return {start, end};
            }
            case OP_REPEAT: {
                i32 start = nfa.state(), cur = start;
                for (i32 i = 0; i < nd.a; ++i) {
                    auto [s, e] = frag(nfa, nd.kids[0]);
                    nfa.eps[static_cast<std::size_t>(cur)].push_back(s);
                    cur = e;
                }
                if (nd.b < 0) {
                    auto [s, e] = frag(nfa, nd.kids[0]);
                    i32 end = nfa.state();
                    nfa.eps[static_cast<std::size_t>(cur)].push_back(s);
                    nfa.eps[static_cast<std::size_t>(cur)].push_back(end);
                    nfa.eps[static_cast<std::size_t>(e)].push_back(s);
                    nfa.eps[static_cast<std::size_t>(e)].push_back(end);
                    return {start, end};
                }
                i32 end = nfa.state();
                nfa.eps[static_cast<std::size_t>(cur)].push_back(end);
                for (i32 i = 0; i < nd.b - nd.a; ++i) {
                    auto [s, e] = frag(nfa, nd.kids[0]);
                    nfa.eps[static_cast<std::size_t>(cur)].push_back(s);
                    nfa.eps[static_cast<std::size_t>(e)].push_back(end);
                    cur = e;
                }
                return {start, end};
            }
            case OP_REF:
                return nfa.embed(refs_[static_cast<std::size_t>(nd.a)]);
            case OP_INTERSECT: {
                Dfa acc = build(nd.kids[0]);
                for (std::size_t i = 1; i < nd.kids.size(); ++i)
                    acc = minimized(product(acc, build(nd.kids[i]), true, budget_));
                return nfa.embed(acc);
            }
            case OP_COMPLEMENT:
                return nfa.embed(complement_utf8(build(nd.kids[0]), budget_));
            default:
                throw InputError("unknown expression opcode");
        }
    }

    const Program& prog_;
    const std::vector<Dfa>& refs_;
    i32 budget_;
};

}  // namespace

namespace {

// Byte classes of a 256-column DFA: bytes whose columns are equal (sparse columns, one pass).
CDfa compress(const Dfa& d) {
    CDfa c;
    c.n = d.n;
    std::vector<std::vector<i32>> cols(256);
    for (i32 q = 0; q < d.n; ++q) {
        const i32* row = d.trans.data() + static_cast<std::size_t>(q) * 256;
        for (int b = 0; b < 256; ++b)
            if (row[b] >= 0) {
                cols[static_cast<std::size_t>(b)].push_back(q);
                cols[static_cast<std::size_t>(b)].push_back(row[b]);
            }
    }
    std::unordered_map<std::vector<i32>, int, VecHash> seen;
    std::vector<int> rep;
    for (int b = 0; b < 256; ++b) {
        auto res = seen.emplace(std::move(cols[static_cast<std::size_t>(b)]), static_cast<int>(rep.size()));
        if (res.second) rep.push_back(b);
        c.cls[static_cast<std::size_t>(b)] = res.first->second;
    }
    c.n_cls = static_cast<i32>(rep.size());
    c.trans.resize(static_cast<std::size_t>(d.n) * static_cast<std::size_t>(c.n_cls));
    for (i32 q = 0; q < d.n; ++q)
        for (i32 k = 0; k < c.n_cls; ++k) c.trans[static_cast<std::size_t>(q) * static_cast<std::size_t>(c.n_cls) + static_cast<std::size_t>(k)] = d.at(q, rep[static_cast<std::size_t>(k)]);
    c.accept = d.accept;
    return c;
}

// Drop unreachable states; states that cannot reach acceptance become dead.
CDfa trimmed_c(const CDfa& d) {
    const i32 n = d.n;
    const std::size_t C = static_cast<std::size_t>(d.n_cls);
    std::vector<u8> reach(static_cast<std::size_t>(n), 0), live(static_cast<std::size_t>(n), 0);
    std::vector<i32> stack;
    if (n > 0) {
        reach[0] = 1;
        stack.push_back(0);
    }
    while (!stack.empty()) {
        i32 q = stack.back();
        stack.pop_back();
        for (std::size_t c = 0; c < C; ++c) {
            i32 t = d.trans[static_cast<std::size_t>(q) * C + c];
            if (t >= 0 && !reach[static_cast<std::size_t>(t)]) {
                reach[static_cast<std::size_t>(t)] = 1;
                stack.push_back(t);
            }
        }
    }
    // Reverse edges (CSR) for the live search.
    std::vector<i32> rstart(static_cast<std::size_t>(n) + 1, 0), rlist;
    for (i32 q = 0; q < n; ++q)
        for (std::size_t c = 0; c < C; ++c) {
            i32 t = d.trans[static_cast<std::size_t>(q) * C + c];
            if (t >= 0) ++rstart[static_cast<std::size_t>(t) + 1];
        }
    for (i32 q = 0; q < n; ++q) rstart[static_cast<std::size_t>(q) + 1] += rstart[static_cast<std::size_t>(q)];
    rlist.resize(static_cast<std::size_t>(rstart.back()));
    {
        std::vector<i32> fill(rstart.begin(), rstart.end() - 1);
        for (i32 q = 0; q < n; ++q)
            for (std::size_t c = 0; c < C; ++c) {
                i32 t = d.trans[static_cast<std::size_t>(q) * C + c];
                if (t >= 0) rlist[static_cast<std::size_t>(fill[static_cast<std::size_t>(t)]++)] = q;
            }
    }
    for (i32 q = 0; q < n; ++q)
        if (d.accept[static_cast<std::size_t>(q)] && reach[static_cast<std::size_t>(q)]) {
            live[static_cast<std::size_t>(q)] = 1;
            stack.push_back(q);
        }
    while (!stack.empty()) {
        i32 q = stack.back();
        stack.pop_back();
        for (i32 k = rstart[static_cast<std::size_t>(q)]; k < rstart[static_cast<std::size_t>(q) + 1]; ++k) {
            i32 p = rlist[static_cast<std::size_t>(k)];
            if (!live[static_cast<std::size_t>(p)]) {
                live[static_cast<std::size_t>(p)] = 1;
                stack.push_back(p);
            }
        }
    }
    for (i32 q = 0; q < n; ++q) live[static_cast<std::size_t>(q)] &= reach[static_cast<std::size_t>(q)];
    CDfa out;
    out.cls = d.cls;
    out.n_cls = d.n_cls;
    if (n == 0 || !live[0]) {
        out.n = 1;
        out.trans.assign(C, -1);
        out.accept.assign(1, 0);
        return out;
    }
    std::vector<i32> remap(static_cast<std::size_t>(n), -1);
    i32 m = 0;
    for (i32 q = 0; q < n; ++q)
        if (live[static_cast<std::size_t>(q)]) remap[static_cast<std::size_t>(q)] = m++;
    out.n = m;
    out.trans.resize(static_cast<std::size_t>(m) * C);
    out.accept.resize(static_cast<std::size_t>(m));
    for (i32 q = 0; q < n; ++q) {
        i32 r = remap[static_cast<std::size_t>(q)];
        if (r < 0) continue;
        for (std::size_t c = 0; c < C; ++c) {
            i32 t = d.trans[static_cast<std::size_t>(q) * C + c];
            out.trans[static_cast<std::size_t>(r) * C + c] = t >= 0 ? remap[static_cast<std::size_t>(t)] : -1;
        }
        out.accept[static_cast<std::size_t>(r)] = d.accept[static_cast<std::size_t>(q)];
    }
    return out;
}

}  // namespace

Dfa trimmed(const Dfa& d) { return expand(trimmed_c(compress(d))); }

Dfa minimized(const Dfa& input) { return expand(minimized_c(compress(input))); }

namespace {

// Hopcroft over byte classes (compiler/automata.py DFA.minimized): the coarsest partition is
// unique, and blocks are numbered the same way, so the result equals Python's array for array.
// Blocks of an acyclic DFA by hashing right languages bottom-up (Revuz): linear, and the same
// (unique, coarsest) partition Hopcroft finds. Returns false for a cyclic DFA.
bool acyclic_blocks(const CDfa& d, std::vector<i32>& block_of) {
    const i32 n = d.n;
    const std::size_t C = static_cast<std::size_t>(d.n_cls);
    // Topological order by DFS post-order (iterative); a back edge means a cycle.
    std::vector<u8> mark(static_cast<std::size_t>(n), 0);  // 0 new, 1 on stack, 2 done
    std::vector<i32> order;
    order.reserve(static_cast<std::size_t>(n));
    std::vector<std::pair<i32, std::size_t>> stack;
    for (i32 root = 0; root < n; ++root) {
        if (mark[static_cast<std::size_t>(root)]) continue;
        stack.emplace_back(root, 0);
        mark[static_cast<std::size_t>(root)] = 1;
        while (!stack.empty()) {
            auto& [q, c] = stack.back();
            if (c == C) {
                mark[static_cast<std::size_t>(q)] = 2;
                order.push_back(q);
                stack.pop_back();
                continue;
            }
            i32 t = d.trans[static_cast<std::size_t>(q) * C + c++];
            if (t < 0) continue;
            if (mark[static_cast<std::size_t>(t)] == 1) return false;
            if (mark[static_cast<std::size_t>(t)] == 0) {
                mark[static_cast<std::size_t>(t)] = 1;
                stack.emplace_back(t, 0);
            }
        }
    }
    // Post-order visits successors first: signatures refer only to settled blocks.
    block_of.assign(static_cast<std::size_t>(n) + 1, -1);
    const i32 dead_block = 0;
    block_of[static_cast<std::size_t>(n)] = dead_block;
    std::unordered_map<std::vector<i32>, i32, VecHash> index;
    std::vector<i32> sig(C + 1);
    i32 next_block = 1;
    for (i32 q : order) {
        sig[0] = d.accept[static_cast<std::size_t>(q)];
        for (std::size_t c = 0; c < C; ++c) {
            i32 t = d.trans[static_cast<std::size_t>(q) * C + c];
            sig[c + 1] = t < 0 ? dead_block : block_of[static_cast<std::size_t>(t)];
        }
        auto found = index.find(sig);
        if (found != index.end()) {
            block_of[static_cast<std::size_t>(q)] = found->second;
        } else {
            block_of[static_cast<std::size_t>(q)] = next_block;
            index.emplace(sig, next_block++);
        }
    }
    return true;
}

CDfa renumber(const CDfa& d, const std::vector<i32>& block_of, i32 n_blocks) {
    // The start's block first, then blocks by first appearance; the dead block -> -1.
    const i32 n = d.n;
    const std::size_t n_cls = static_cast<std::size_t>(d.n_cls);
    std::vector<i32> new_id(static_cast<std::size_t>(n_blocks), -2);
    new_id[static_cast<std::size_t>(block_of[static_cast<std::size_t>(n)])] = -1;
    std::vector<i32> reps;
    auto visit = [&](i32 q) {
        i32 b = block_of[static_cast<std::size_t>(q)];
        if (new_id[static_cast<std::size_t>(b)] == -2) {
            new_id[static_cast<std::size_t>(b)] = static_cast<i32>(reps.size());
            reps.push_back(q);
        }
    };
    visit(0);
    for (i32 q = 0; q < n; ++q) visit(q);
    CDfa out;
    out.cls = d.cls;
    out.n_cls = d.n_cls;
    out.n = static_cast<i32>(reps.size());
    out.trans.resize(static_cast<std::size_t>(out.n) * n_cls);
    out.accept.resize(static_cast<std::size_t>(out.n));
    for (i32 i = 0; i < out.n; ++i) {
        i32 q = reps[static_cast<std::size_t>(i)];
        for (std::size_t c = 0; c < n_cls; ++c) {
            i32 t = d.trans[static_cast<std::size_t>(q) * n_cls + c];
            i32 b = block_of[static_cast<std::size_t>(t < 0 ? n : t)];
            out.trans[static_cast<std::size_t>(i) * n_cls + c] = new_id[static_cast<std::size_t>(b)];
        }
        out.accept[static_cast<std::size_t>(i)] = d.accept[static_cast<std::size_t>(q)];
    }
    return out;
}

CDfa minimized_c(const CDfa& input) {
    CDfa d = trimmed_c(input);
    const i32 n = d.n;
    if (n <= 1) return d;
    {
        std::vector<i32> blocks;
        if (acyclic_blocks(d, blocks)) {
            i32 n_blocks = 0;
            for (i32 b : blocks) n_blocks = std::max(n_blocks, b + 1);
            return renumber(d, blocks, n_blocks);
        }
    }
    const i32 total = n + 1;  // state n is the explicit dead state
    const std::size_t n_cls = static_cast<std::size_t>(d.n_cls);
    auto target = [&](i32 q, std::size_t c) -> i32 {
        if (q == n) return n;
        i32 t = d.trans[static_cast<std::size_t>(q) * n_cls + c];
        return t < 0 ? n : t;
    };
    // Predecessors per class, CSR.
    std::vector<std::vector<i32>> pred_start(n_cls), pred_list(n_cls);
    for (std::size_t c = 0; c < n_cls; ++c) {
        std::vector<i32>& start = pred_start[c];
        std::vector<i32>& list = pred_list[c];
        start.assign(static_cast<std::size_t>(total) + 1, 0);
        for (i32 p = 0; p < total; ++p) ++start[static_cast<std::size_t>(target(p, c)) + 1];
        for (i32 q = 0; q < total; ++q) start[static_cast<std::size_t>(q) + 1] += start[static_cast<std::size_t>(q)];
        list.resize(static_cast<std::size_t>(total));
        std::vector<i32> fill(start.begin(), start.end() - 1);
        for (i32 p = 0; p < total; ++p) list[static_cast<std::size_t>(fill[static_cast<std::size_t>(target(p, c))]++)] = p;
    }
    // Partition refinement: elems ordered by block; block b spans [first[b], end[b]).
    std::vector<i32> elems, pos(static_cast<std::size_t>(total)), block_of(static_cast<std::size_t>(total));
    std::vector<i32> first, end, marked;
    std::vector<u8> in_work;
    std::vector<i32> work;
    for (int flag = 0; flag < 2; ++flag) {
        i32 b = static_cast<i32>(first.size());
        i32 f = static_cast<i32>(elems.size());
        for (i32 q = 0; q < total; ++q) {
            bool acc = q < n && d.accept[static_cast<std::size_t>(q)];
            if (static_cast<int>(acc) == flag) {
                pos[static_cast<std::size_t>(q)] = static_cast<i32>(elems.size());
                elems.push_back(q);
                block_of[static_cast<std::size_t>(q)] = b;
            }
        }
        if (static_cast<i32>(elems.size()) > f) {
            first.push_back(f);
            end.push_back(static_cast<i32>(elems.size()));
            marked.push_back(0);
            in_work.push_back(0);
        }
    }
    if (first.size() > 1) {
        i32 small = (end[0] - first[0]) <= (end[1] - first[1]) ? 0 : 1;
        work.push_back(small);
        in_work[static_cast<std::size_t>(small)] = 1;
    }
    std::vector<i32> splitter, touched;
    while (!work.empty()) {
        i32 a = work.back();
        work.pop_back();
        in_work[static_cast<std::size_t>(a)] = 0;
        splitter.assign(elems.begin() + first[static_cast<std::size_t>(a)], elems.begin() + end[static_cast<std::size_t>(a)]);
        for (std::size_t c = 0; c < n_cls; ++c) {
            touched.clear();
            for (i32 q : splitter) {
                for (i32 k = pred_start[c][static_cast<std::size_t>(q)]; k < pred_start[c][static_cast<std::size_t>(q) + 1]; ++k) {
                    i32 p = pred_list[c][static_cast<std::size_t>(k)];
                    i32 b = block_of[static_cast<std::size_t>(p)];
                    i32 at = first[static_cast<std::size_t>(b)] + marked[static_cast<std::size_t>(b)];
                    if (pos[static_cast<std::size_t>(p)] < at) continue;  // already marked
                    if (marked[static_cast<std::size_t>(b)] == 0) touched.push_back(b);
                    // Swap p to the marked front of its block.
                    i32 other = elems[static_cast<std::size_t>(at)];
                    i32 pp = pos[static_cast<std::size_t>(p)];
                    elems[static_cast<std::size_t>(at)] = p;
                    pos[static_cast<std::size_t>(p)] = at;
                    elems[static_cast<std::size_t>(pp)] = other;
                    pos[static_cast<std::size_t>(other)] = pp;
                    ++marked[static_cast<std::size_t>(b)];
                }
            }
            for (i32 b : touched) {
                i32 m = marked[static_cast<std::size_t>(b)];
                marked[static_cast<std::size_t>(b)] = 0;
                i32 size = end[static_cast<std::size_t>(b)] - first[static_cast<std::size_t>(b)];
                if (m == size) continue;
                // The marked part becomes a new block.
                i32 nb = static_cast<i32>(first.size());
                first.push_back(first[static_cast<std::size_t>(b)]);
                end.push_back(first[static_cast<std::size_t>(b)] + m);
                marked.push_back(0);
                in_work.push_back(0);
                first[static_cast<std::size_t>(b)] += m;
                for (i32 k = first[static_cast<std::size_t>(nb)]; k < end[static_cast<std::size_t>(nb)]; ++k)
                    block_of[static_cast<std::size_t>(elems[static_cast<std::size_t>(k)])] = nb;
                if (in_work[static_cast<std::size_t>(b)]) {
                    work.push_back(nb);
                    in_work[static_cast<std::size_t>(nb)] = 1;
                } else {
                    i32 pick = m <= size - m ? nb : b;
                    work.push_back(pick);
                    in_work[static_cast<std::size_t>(pick)] = 1;
                }
            }
        }
    }
    return renumber(d, block_of, static_cast<i32>(first.size()));
}

}  // namespace


const Dfa& utf8_text_dfa() {
    static const Dfa dfa = [] {
        // Repeat(CharClass(0..U+10FFFF minus surrogates)), as automata.utf8_text_dfa builds it.
        std::vector<i32> prog{OP_REPEAT, 0, -1, OP_CLASS, 2, 0, 0xD7FF, 0xE000, MAX_CODEPOINT};
        std::vector<Dfa> none;
        return expr_to_dfa(prog, none, DEFAULT_STATE_BUDGET);
    }();
    return dfa;
}

Dfa expr_to_dfa(const std::vector<i32>& prog, const std::vector<Dfa>& refs, i32 budget) {
    for (const Dfa& r : refs) {
        if (r.n <= 0 || r.trans.size() != static_cast<std::size_t>(r.n) * 256 || r.accept.size() != static_cast<std::size_t>(r.n))
            throw InputError("malformed referenced DFA");
        for (i32 t : r.trans)
            if (t < -1 || t >= r.n) throw InputError("referenced DFA has a transition out of range");
    }
    Program p(prog, refs.size());
    Builder builder(p, refs, budget);
    return builder.build(0);
}

}  // namespace tg
