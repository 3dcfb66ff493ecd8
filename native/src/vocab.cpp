#include "vocab.hpp"

#include <algorithm>

#include "automata.hpp"

namespace tg {

namespace {
constexpr std::size_t IMPURE_CACHE = 24;
constexpr std::size_t FIRST_MASK_CACHE = 4096;
}  // namespace

Vocab::Vocab(i32 size, std::vector<i64> offsets, std::vector<u8> flat, std::vector<u8> text,
             std::vector<i32> eos, TrieArrays trie)
    : size_(size), offsets_(std::move(offsets)), flat_(std::move(flat)), text_(std::move(text)),
      eos_(std::move(eos)), trie_(std::move(trie)) {
    if (size_ < 0) throw InputError("negative vocabulary size");
    if (offsets_.size() != static_cast<std::size_t>(size_) + 1 || text_.size() != static_cast<std::size_t>(size_))
        throw InputError("token offsets or text flags do not match the vocabulary size");
    if (offsets_[0] != 0) throw InputError("token offsets must start at 0");
    for (std::size_t i = 0; i + 1 < offsets_.size(); ++i)
        if (offsets_[i + 1] < offsets_[i]) throw InputError("token offsets must not decrease");
    if (static_cast<std::size_t>(offsets_.back()) != flat_.size()) throw InputError("token bytes truncated");
    eos_flag_.assign(static_cast<std::size_t>(size_), 0);
    for (i32 t : eos_) {
        check_index(t, size_, "EOS token id");
        eos_flag_[static_cast<std::size_t>(t)] = 1;
    }
    first_byte_.assign(static_cast<std::size_t>(size_), 256);
    for (i32 t = 0; t < size_; ++t) {
        i64 len = offsets_[static_cast<std::size_t>(t) + 1] - offsets_[static_cast<std::size_t>(t)];
        if (text_[static_cast<std::size_t>(t)] && len == 0) throw InputError("a text token has no bytes");
        if (text_[static_cast<std::size_t>(t)]) {
            first_byte_[static_cast<std::size_t>(t)] = flat_[static_cast<std::size_t>(offsets_[static_cast<std::size_t>(t)])];
            text_ids_.push_back(t);
        }
    }
    // The trie: CSR children, tokens per node, subtree sizes; nodes in pre-order.
    const TrieArrays& tr = trie_;
    if (tr.child_start.empty()) throw InputError("empty trie");
    n_nodes_ = static_cast<i32>(tr.child_start.size()) - 1;
    if (tr.tok_start.size() != tr.child_start.size() || tr.subtree.size() != static_cast<std::size_t>(n_nodes_) ||
        tr.child_node.size() != tr.child_byte.size())
        throw InputError("trie arrays disagree in length");
    if (tr.child_start[0] != 0 || static_cast<std::size_t>(tr.child_start.back()) != tr.child_node.size() ||
        tr.tok_start[0] != 0 || static_cast<std::size_t>(tr.tok_start.back()) != tr.tok_ids.size())
        throw InputError("trie offsets do not cover their arrays");
    for (i32 n = 0; n < n_nodes_; ++n) {
        if (tr.child_start[static_cast<std::size_t>(n) + 1] < tr.child_start[static_cast<std::size_t>(n)] ||
            tr.tok_start[static_cast<std::size_t>(n) + 1] < tr.tok_start[static_cast<std::size_t>(n)])
            throw InputError("trie offsets must not decrease");
        i64 sub = tr.subtree[static_cast<std::size_t>(n)];
        if (sub < 1 || n + sub > n_nodes_) throw InputError("trie subtree size out of range");
    }
    byte_into_.assign(static_cast<std::size_t>(n_nodes_), -1);
    for (i32 n = 0; n < n_nodes_; ++n) {
        for (i32 k = tr.child_start[static_cast<std::size_t>(n)]; k < tr.child_start[static_cast<std::size_t>(n) + 1]; ++k) {
            i32 c = tr.child_node[static_cast<std::size_t>(k)];
            // Pre-order: a child lies inside its parent's subtree, after the parent.
            if (c <= n || c + tr.subtree[static_cast<std::size_t>(c)] > n + tr.subtree[static_cast<std::size_t>(n)])
                throw InputError("trie is not in pre-order");
            byte_into_[static_cast<std::size_t>(c)] = tr.child_byte[static_cast<std::size_t>(k)];
        }
    }
    for (i32 t : tr.tok_ids)
        if (!is_text(t)) throw InputError("trie holds a token that is not text");
    // Height: the most bytes a token below a node adds beyond it (reverse pre-order).
    height_.assign(static_cast<std::size_t>(n_nodes_), 0);
    for (i32 n = n_nodes_ - 1; n >= 0; --n) {
        i32 h = 0;
        for (i32 k = tr.child_start[static_cast<std::size_t>(n)]; k < tr.child_start[static_cast<std::size_t>(n) + 1]; ++k)
            h = std::max(h, 1 + height_[static_cast<std::size_t>(tr.child_node[static_cast<std::size_t>(k)])]);
        height_[static_cast<std::size_t>(n)] = h;
    }
    // UTF-8 well-formedness since the last ASCII byte (pre-order: parents come first).
    const Dfa& u = utf8_text_dfa();
    std::vector<i32> ustate(static_cast<std::size_t>(n_nodes_), 0);
    utf8_bad_.assign(static_cast<std::size_t>(n_nodes_), 0);
    for (i32 n = 0; n < n_nodes_; ++n) {
        for (i32 k = tr.child_start[static_cast<std::size_t>(n)]; k < tr.child_start[static_cast<std::size_t>(n) + 1]; ++k) {
            i32 c = tr.child_node[static_cast<std::size_t>(k)];
            int b = tr.child_byte[static_cast<std::size_t>(k)];
            i32 from = ustate[static_cast<std::size_t>(n)];
            i32 to = from >= 0 ? u.at(from, b) : -1;
            utf8_bad_[static_cast<std::size_t>(c)] = to < 0 ? 1 : 0;
            ustate[static_cast<std::size_t>(c)] = b < 0x80 ? 0 : to;
        }
    }
}

std::shared_ptr<const std::vector<i32>> Vocab::impure_sums(u64 lo, u64 hi, bool utf8) const {
    std::vector<u64> key{lo, hi, utf8 ? 1ULL : 0ULL};
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto it = impure_.begin(); it != impure_.end(); ++it) {
            if (it->first == key) {
                impure_.splice(impure_.begin(), impure_, it);
                return impure_.front().second;
            }
        }
    }
    auto sums = std::make_shared<std::vector<i32>>(static_cast<std::size_t>(n_nodes_));
    i32 acc = 0;
    for (i32 n = 0; n < n_nodes_; ++n) {
        i32 b = byte_into_[static_cast<std::size_t>(n)];
        bool impure = false;
        if (b >= 0) {
            if (b < 64) impure = !((lo >> b) & 1ULL);
            else if (b < 128) impure = !((hi >> (b - 64)) & 1ULL);
            else impure = !utf8;
            if (utf8 && utf8_bad_[static_cast<std::size_t>(n)]) impure = true;
        }
        acc += impure ? 1 : 0;
        (*sums)[static_cast<std::size_t>(n)] = acc;
    }
    std::lock_guard<std::mutex> lock(mu_);
    impure_.emplace_front(std::move(key), sums);
    while (impure_.size() > IMPURE_CACHE) impure_.pop_back();
    return sums;
}

std::shared_ptr<const std::vector<u32>> Vocab::first_byte_mask(const u64 set[4]) const {
    std::vector<u64> key(set, set + 4);
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto found = first_masks_.find(key);
        if (found != first_masks_.end()) return found->second;
    }
    auto mask = std::make_shared<std::vector<u32>>(static_cast<std::size_t>(n_words()), 0u);
    for (i32 t : text_ids_) {
        i32 b = first_byte_[static_cast<std::size_t>(t)];
        if ((set[b >> 6] >> (b & 63)) & 1ULL) (*mask)[static_cast<std::size_t>(t >> 5)] |= 1u << (t & 31);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (first_masks_.size() > FIRST_MASK_CACHE) first_masks_.clear();
    first_masks_.emplace(std::move(key), mask);
    return mask;
}

std::size_t Vocab::bytes() const {
    return offsets_.size() * 8 + flat_.size() + text_.size() * 2 + first_byte_.size() * 4 +
           (trie_.child_start.size() + trie_.child_node.size() + trie_.tok_start.size() + trie_.tok_ids.size() +
            trie_.subtree.size() + height_.size()) * 4 + trie_.child_byte.size() + byte_into_.size() * 3;
}

}  // namespace tg
