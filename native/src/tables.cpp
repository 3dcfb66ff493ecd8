#include "tables.hpp"

#include <algorithm>
#include <map>

#include "automata.hpp"

namespace tg {

namespace {
constexpr int QUIET_MIN_BYTES = 48;

}  // namespace

bool TableBuilder::no_boundary(i32 state, int byte) {
    if (!lexer_.accepting(state)) return true;
    i32 nxt = lexer_.step(state, byte);
    i32 alive = lexer_.alive_bits(state);
    const std::size_t w = bits_.width();
    const std::vector<i32> evs = lexer_.events(state, nxt);
    for (i32 ev : evs) {
        LexEvent e = lexer_.event(ev);
        if (lexer_.step(e.restart, byte) < 0) continue;
        // (blockers & alive) != alive: some alive terminal is not a blocker.
        const u64* bl = bits_.get(e.blockers);
        const u64* al = bits_.get(alive);
        for (std::size_t i = 0; i < w; ++i)
            if ((bl[i] & al[i]) != al[i]) return false;
    }
    return true;
}

bool TableBuilder::utf8_loops(i32 state) {
    const Dfa& u = utf8_text_dfa();
    i32 target = lexer_.alive_bits(state);
    std::vector<std::pair<i32, i32>> stack{{0, state}};
    std::unordered_map<u64, bool, U64Hash> seen{{key2(0, state), true}};
    while (!stack.empty()) {
        auto [uq, s] = stack.back();
        stack.pop_back();
        for (int b = 0x80; b < 0x100; ++b) {
            i32 u2 = u.at(uq, b);
            if (u2 < 0) continue;
            i32 s2 = lexer_.step(s, b);
            if (s2 < 0 || !no_boundary(s, b)) return false;
            if (u.accept[static_cast<std::size_t>(u2)]) {
                if (s2 != state) return false;
                continue;
            }
            if (lexer_.alive_bits(s2) != target) return false;
            if (seen.emplace(key2(u2, s2), true).second) stack.emplace_back(u2, s2);
        }
    }
    return true;
}

const Quiet& TableBuilder::quiet(i32 state) {
    if (static_cast<std::size_t>(state) >= quiet_done_.size()) {
        std::size_t n = static_cast<std::size_t>(lexer_.n_states()) + 64;
        quiet_done_.resize(n, 0);
        quiet_.resize(n);
        sums_.resize(n);
    }
    if (quiet_done_[static_cast<std::size_t>(state)]) return quiet_[static_cast<std::size_t>(state)];
    Quiet q;
    const i32 target = lexer_.alive_bits(state);
    const i32* srow = lexer_.row(state);
    // The most common target over ASCII bytes (first in byte order on ties).
    std::vector<std::pair<i32, int>> counts;  // target, count (insertion order)
    for (int b = 0; b < 128; ++b) {
        i32 t = srow[b];
        if (t < 0) continue;
        bool hit = false;
        for (auto& c : counts)
            if (c.first == t) {
                ++c.second;
                hit = true;
                break;
            }
        if (!hit) counts.emplace_back(t, 1);
    }
    if (!counts.empty()) {
        std::pair<i32, int> best = counts[0];
        for (const auto& c : counts)
            if (c.second > best.second) best = c;
        const i32 nxt = best.first;
        std::vector<int> quiet_bytes;
        for (int b = 0; b < 128; ++b)
            if (srow[b] == nxt && no_boundary(state, b)) quiet_bytes.push_back(b);
        if (static_cast<int>(quiet_bytes.size()) >= QUIET_MIN_BYTES && lexer_.alive_bits(nxt) == target) {
            q.quiet = true;
            for (int b : quiet_bytes) (b < 64 ? q.lo : q.hi) |= 1ULL << (b & 63);
            if (nxt != state) {
                i32 length = 1, cur = nxt;
                std::vector<i32> seen{state, nxt};
                while (true) {
                    const i32* crow = lexer_.row(cur);
                    i32 after = crow[quiet_bytes[0]];
                    bool same = true;
                    for (int b : quiet_bytes) same = same && crow[b] == after;
                    if (!same) break;
                    bool quiet_here = true;
                    for (int b : quiet_bytes) quiet_here = quiet_here && no_boundary(cur, b);
                    if (!quiet_here) break;
                    if (after < 0 || lexer_.alive_bits(after) != target ||
                        std::find(seen.begin(), seen.end(), after) != seen.end())
                        break;
                    seen.push_back(after);
                    cur = after;
                    ++length;
                }
                q.loop = false;
                q.max_len = length;
            } else {
                q.loop = true;
                q.utf8 = utf8_loops(state);
            }
        }
    }
    // quiet_ may have been resized by nested calls (no_boundary creates lexer states).
    if (static_cast<std::size_t>(state) >= quiet_done_.size()) {
        std::size_t n = static_cast<std::size_t>(lexer_.n_states()) + 64;
        quiet_done_.resize(n, 0);
        quiet_.resize(n);
        sums_.resize(n);
    }
    quiet_[static_cast<std::size_t>(state)] = q;
    quiet_done_[static_cast<std::size_t>(state)] = 1;
    return quiet_[static_cast<std::size_t>(state)];
}

const std::vector<i32>* TableBuilder::sums(i32 lex) {
    const Quiet& q = quiet(lex);
    if (!q.quiet) return nullptr;
    auto& slot = sums_[static_cast<std::size_t>(lex)];
    if (!slot) slot = vocab_.impure_sums(q.lo, q.hi, q.loop && q.utf8);
    return slot.get();
}

std::shared_ptr<const LexTable> TableBuilder::build(i32 state) {
    const TrieArrays& tr = vocab_.trie();
    auto tab = std::make_shared<LexTable>();
    tab->state = state;
    // Paths: parent and event per path, children and groups found by a short linear scan.
    struct PathInfo {
        std::vector<std::pair<i32, i32>> kids;    // (event, path)
        std::vector<std::pair<i32, i32>> groups;  // (alive bits, group)
    };
    std::vector<PathInfo> pinfo(1);
    std::vector<i32> p_parent{-1}, p_event{-1};
    struct GroupBuild {
        std::vector<std::pair<i32, i32>> ranges;  // [lo, hi) of trie tok_ids
        i64 count = 0;
    };
    std::vector<GroupBuild> gb;
    auto child_path = [&](i32 p, i32 ev) -> i32 {
        for (const auto& kv : pinfo[static_cast<std::size_t>(p)].kids)
            if (kv.first == ev) return kv.second;
        i32 id = static_cast<i32>(p_parent.size());
        p_parent.push_back(p);
        p_event.push_back(ev);
        pinfo[static_cast<std::size_t>(p)].kids.emplace_back(ev, id);
        pinfo.emplace_back();
        return id;
    };
    auto record = [&](i32 t0, i32 t1, i32 path, i32 alive) {
        if (t1 <= t0) return;
        auto& groups = pinfo[static_cast<std::size_t>(path)].groups;
        i32 g = -1;
        for (const auto& kv : groups)
            if (kv.first == alive) {
                g = kv.second;
                break;
            }
        if (g < 0) {
            g = static_cast<i32>(gb.size());
            groups.emplace_back(alive, g);
            gb.emplace_back();
            tab->group_path.push_back(path);
            tab->group_alive.push_back(alive);
        }
        GroupBuild& b = gb[static_cast<std::size_t>(g)];
        if (!b.ranges.empty() && b.ranges.back().second == t0) b.ranges.back().second = t1;
        else b.ranges.emplace_back(t0, t1);
        b.count += t1 - t0;
    };
    struct Frame {
        i32 node, lex, path;
    };
    std::vector<Frame> stack{{0, state, 0}};
    i64 budget = walk_budget_;
    const i32* child_start = tr.child_start.data();
    const i32* child_node = tr.child_node.data();
    const u8* child_byte = tr.child_byte.data();
    const i32* tok_start = tr.tok_start.data();
    const i32* subtree = tr.subtree.data();
    while (!stack.empty()) {
        const Frame f = stack.back();
        stack.pop_back();
        if (--budget < 0) {
            throw BudgetError("token-table-budget", "the token table walk exceeds its budget", -1, state);
        }
        if (f.path != 0) ++entries;
        const i32* lrow = lexer_.row(f.lex);
        const bool acc = lexer_.accepting(f.lex) && f.node != 0;
        const std::vector<i32>* qsums = sums(f.lex);
        const Quiet& qz = quiet_[static_cast<std::size_t>(f.lex)];
        const i32 alive_here = lexer_.alive_bits(f.lex);
        for (i32 k = child_start[f.node]; k < child_start[f.node + 1]; ++k) {
            const i32 child = child_node[k];
            const int b = child_byte[k];
            if (qsums != nullptr && b < 128 && (((b < 64 ? qz.lo : qz.hi) >> (b & 63)) & 1ULL)) {
                const i32 last = child + subtree[child] - 1;
                if ((*qsums)[static_cast<std::size_t>(last)] == (*qsums)[static_cast<std::size_t>(child)] &&
                    (qz.loop || 1 + vocab_.height(child) <= qz.max_len)) {
                    // The whole subtree stays in this lexeme with nothing to decide.
                    record(tok_start[child], tok_start[last + 1], f.path, alive_here);
                    continue;
                }
            }
            const i32 nxt = lrow[b];
            if (nxt >= 0) {
                record(tok_start[child], tok_start[child + 1], f.path, lexer_.alive_bits(nxt));
                stack.push_back({child, nxt, f.path});
            }
            if (acc) {
                const std::vector<i32>& evs = lexer_.events_on(f.lex, b);
                for (i32 ev : evs) {
                    const i32 fresh = lexer_.step(lexer_.event_restart(ev), b);
                    if (fresh < 0) continue;
                    const i32 p2 = child_path(f.path, ev);
                    record(tok_start[child], tok_start[child + 1], p2, lexer_.alive_bits(fresh));
                    stack.push_back({child, fresh, p2});
                }
            }
        }
    }
    steps += static_cast<u64>(walk_budget_ - budget);
    paths += p_parent.size();
    // Groups: dense rows for big ones, sorted token lists for the rest.
    const i32 n_groups = static_cast<i32>(gb.size());
    const i32 nw = vocab_.n_words();
    const i64 dense_min = std::max<i64>(64, nw);
    tab->group_dense.assign(static_cast<std::size_t>(n_groups), -1);
    i32 n_dense = 0;
    for (i32 g = 0; g < n_groups; ++g)
        if (gb[static_cast<std::size_t>(g)].count >= dense_min) tab->group_dense[static_cast<std::size_t>(g)] = n_dense++;
    tab->dense.assign(static_cast<std::size_t>(n_dense) * static_cast<std::size_t>(nw), 0u);
    tab->group_start.assign(1, 0);
    const i32* tok_ids = tr.tok_ids.data();
    std::vector<i32> buf;
    for (i32 g = 0; g < n_groups; ++g) {
        const GroupBuild& b = gb[static_cast<std::size_t>(g)];
        const i32 d = tab->group_dense[static_cast<std::size_t>(g)];
        if (d >= 0) {
            u32* row = tab->dense.data() + static_cast<std::size_t>(d) * static_cast<std::size_t>(nw);
            for (const auto& r : b.ranges)
                for (i32 j = r.first; j < r.second; ++j) row[tok_ids[j] >> 5] |= 1u << (tok_ids[j] & 31);
        } else {
            buf.clear();
            for (const auto& r : b.ranges) buf.insert(buf.end(), tok_ids + r.first, tok_ids + r.second);
            std::sort(buf.begin(), buf.end());
            buf.erase(std::unique(buf.begin(), buf.end()), buf.end());
            tab->tokens.insert(tab->tokens.end(), buf.begin(), buf.end());
        }
        tab->group_start.push_back(static_cast<i32>(tab->tokens.size()));
    }
    struct PathsOut {
        std::vector<i32> parent, event;
    } paths_out{std::move(p_parent), std::move(p_event)};
    auto& paths = paths_out;
    tab->path_parent = std::move(paths.parent);
    tab->path_event = std::move(paths.event);
    // Delegates: boundaries before a token's first byte, resolved from the fresh state's table.
    if (lexer_.accepting(state)) {
        std::map<std::pair<i32, i32>, std::array<u64, 4>> found;
        const i32* srow = lexer_.row(state);
        for (int b = 0; b < 256; ++b) {
            const std::vector<i32> evs = lexer_.events(state, srow[b]);
            for (i32 ev : evs) {
                i32 fresh = lexer_.event(ev).restart;
                if (lexer_.step(fresh, b) < 0) continue;
                auto& set = found.emplace(std::make_pair(ev, fresh), std::array<u64, 4>{0, 0, 0, 0}).first->second;
                set[static_cast<std::size_t>(b >> 6)] |= 1ULL << (b & 63);
            }
        }
        for (const auto& kv : found) {
            Delegate dg{kv.first.first, kv.first.second, {kv.second[0], kv.second[1], kv.second[2], kv.second[3]}};
            tab->delegates.push_back(dg);
        }
    }
    tab->bytes = sizeof(LexTable) + (tab->path_parent.size() * 2 + tab->group_path.size() * 4 + tab->tokens.size()) * 4 +
                 tab->dense.size() * 4 + tab->delegates.size() * sizeof(Delegate);
    return tab;
}

}  // namespace tg
