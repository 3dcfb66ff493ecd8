// The per-vocabulary data every engine of that vocabulary shares: token bytes, the token
// trie (built by typedgen/compiler/trie.py, nodes in pre-order so a subtree's tokens are one
// contiguous range), and derived per-node facts used to classify whole subtrees at once.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common.hpp"

namespace tg {

struct TrieArrays {
    std::vector<i32> child_start, child_node, tok_start, tok_ids, subtree;
    std::vector<u8> child_byte;
};

class Vocab {
  public:
    Vocab(i32 size, std::vector<i64> offsets, std::vector<u8> flat, std::vector<u8> text,
          std::vector<i32> eos, TrieArrays trie);

    i32 size() const { return size_; }
    i32 n_words() const { return (size_ + 31) / 32; }
    i32 n_nodes() const { return n_nodes_; }
    bool is_text(i32 t) const { return t >= 0 && t < size_ && text_[static_cast<std::size_t>(t)]; }
    bool is_eos(i32 t) const { return t >= 0 && t < size_ && eos_flag_[static_cast<std::size_t>(t)]; }
    const std::vector<i32>& eos() const { return eos_; }
    const u8* token(i32 t, i64& len) const {
        len = offsets_[static_cast<std::size_t>(t) + 1] - offsets_[static_cast<std::size_t>(t)];
        return flat_.data() + offsets_[static_cast<std::size_t>(t)];
    }
    i32 first_byte(i32 t) const { return first_byte_[static_cast<std::size_t>(t)]; }
    const std::vector<i32>& text_ids() const { return text_ids_; }

    const TrieArrays& trie() const { return trie_; }
    i32 height(i32 node) const { return height_[static_cast<std::size_t>(node)]; }

    // Prefix sums over nodes (pre-order) of "impure" flags for a quiet byte set: a node is
    // impure when its incoming byte is ASCII outside the set, or (ascii_only) any non-ASCII
    // byte, or (utf8) a byte that breaks UTF-8 well-formedness since the last ASCII byte.
    // Node c's strict subtree is pure iff sums[c + subtree[c] - 1] == sums[c].
    std::shared_ptr<const std::vector<i32>> impure_sums(u64 lo, u64 hi, bool utf8) const;

    // Packed mask of the text tokens whose first byte is in the 256-bit set.
    std::shared_ptr<const std::vector<u32>> first_byte_mask(const u64 set[4]) const;

    std::size_t bytes() const;

  private:
    i32 size_;
    std::vector<i64> offsets_;
    std::vector<u8> flat_;
    std::vector<u8> text_, eos_flag_;
    std::vector<i32> eos_, text_ids_;
    std::vector<i32> first_byte_;
    TrieArrays trie_;
    i32 n_nodes_ = 0;
    std::vector<i32> height_;
    std::vector<i16> byte_into_;  // incoming byte per node (-1 for the root)
    std::vector<i8> utf8_bad_;    // per node: breaks UTF-8 since the last ASCII byte
    mutable std::mutex mu_;
    mutable std::list<std::pair<std::vector<u64>, std::shared_ptr<const std::vector<i32>>>> impure_;
    mutable std::unordered_map<std::vector<u64>, std::shared_ptr<const std::vector<u32>>, VecHash> first_masks_;
};

}  // namespace tg
