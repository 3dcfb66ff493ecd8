// Shared building blocks of the native core: errors, hashing, interned bitsets.
//
// Everything here is plain C++17 with no Python in sight: the bindings (bindings.cpp) are the
// only place that knows about Python objects. Indices that come from outside (token ids, state
// ids, byte values) are checked where they enter (see check_index), never trusted.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tg {

using i32 = std::int32_t;
using i64 = std::int64_t;
using i8 = std::int8_t;
using i16 = std::int16_t;
using u8 = std::uint8_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr i32 DEAD = -1;

// A compile budget ran out. `code` is the stable error code of the Python error tree
// ("dfa-budget", "nfa-budget", "lexer-budget", "token-table-budget"); `node` names the IR
// node (pre-order index in the serialised expression) where that is known, else -1.
struct BudgetError : std::runtime_error {
    std::string code;
    i64 node;
    i64 detail;
    BudgetError(std::string code_, const std::string& msg, i64 node_ = -1, i64 detail_ = -1)
        : std::runtime_error(msg), code(std::move(code_)), node(node_), detail(detail_) {}
};

// Malformed input that the Python side should have refused: a bug, reported clearly.
struct InputError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

inline void check_index(i64 value, i64 size, const char* what) {
    if (value < 0 || value >= size) {
        throw InputError(std::string(what) + " " + std::to_string(value) + " out of range [0, " +
                         std::to_string(size) + ")");
    }
}

inline u64 mix64(u64 x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

inline u64 hash_words(const u64* w, std::size_t n, u64 seed = 0x9e3779b97f4a7c15ULL) {
    u64 h = seed ^ (n * 0x100000001b3ULL);
    for (std::size_t i = 0; i < n; ++i) h = mix64(h ^ (w[i] + 0x9e3779b97f4a7c15ULL + (h << 6)));
    return h;
}

template <class T>
inline u64 hash_vec(const std::vector<T>& v, u64 seed = 0) {
    static_assert(sizeof(T) % 4 == 0, "hash_vec expects 32/64-bit elements");
    u64 h = 0xcbf29ce484222325ULL ^ seed ^ (v.size() * 0x100000001b3ULL);
    const auto* p = reinterpret_cast<const u32*>(v.data());
    std::size_t n = v.size() * (sizeof(T) / 4);
    for (std::size_t i = 0; i < n; ++i) h = mix64(h ^ (static_cast<u64>(p[i]) + (h << 7)));
    return h;
}

struct VecHash {
    template <class T>
    std::size_t operator()(const std::vector<T>& v) const {
        return static_cast<std::size_t>(hash_vec(v));
    }
};

struct PairHash {
    std::size_t operator()(const std::pair<i32, i32>& p) const {
        return static_cast<std::size_t>(
            mix64((static_cast<u64>(static_cast<u32>(p.first)) << 32) | static_cast<u32>(p.second)));
    }
};

inline u64 key2(i32 a, i32 b) {
    return (static_cast<u64>(static_cast<u32>(a)) << 32) | static_cast<u32>(b);
}

struct U64Hash {
    std::size_t operator()(u64 x) const { return static_cast<std::size_t>(mix64(x)); }
};

// An open-addressing map from 64-bit keys to 32-bit values (linear probing, power-of-two
// capacity): the memo tables on the hot path (goto, step, token transitions) without the
// node allocations of std::unordered_map. The all-ones key is reserved.
class FlatMap {
  public:
    static constexpr u64 EMPTY = ~0ULL;
    FlatMap() { rehash(64); }
    const i32* find(u64 key) const {
        std::size_t i = static_cast<std::size_t>(mix64(key)) & mask_;
        while (true) {
            const u64 k = keys_[i];
            if (k == key) return &vals_[i];
            if (k == EMPTY) return nullptr;
            i = (i + 1) & mask_;
        }
    }
    void put(u64 key, i32 value) {
        if ((size_ + 1) * 10 > (mask_ + 1) * 7) rehash((mask_ + 1) * 2);
        std::size_t i = static_cast<std::size_t>(mix64(key)) & mask_;
        while (keys_[i] != EMPTY && keys_[i] != key) i = (i + 1) & mask_;
        if (keys_[i] == EMPTY) ++size_;
        keys_[i] = key;
        vals_[i] = value;
    }
    std::size_t size() const { return size_; }
    std::size_t bytes() const { return keys_.size() * 12; }
    void clear() {
        std::fill(keys_.begin(), keys_.end(), EMPTY);
        size_ = 0;
    }

  private:
    void rehash(std::size_t cap) {
        std::vector<u64> old_k = std::move(keys_);
        std::vector<i32> old_v = std::move(vals_);
        keys_.assign(cap, EMPTY);
        vals_.assign(cap, 0);
        mask_ = cap - 1;
        size_ = 0;
        for (std::size_t j = 0; j < old_k.size(); ++j)
            if (old_k[j] != EMPTY) put(old_k[j], old_v[j]);
    }
    std::vector<u64> keys_;
    std::vector<i32> vals_;
    std::size_t mask_ = 0, size_ = 0;
};

// Interned fixed-width bitsets over terminals. Id 0 is the empty set.
class BitPool {
  public:
    explicit BitPool(std::size_t width = 1) : width_(width ? width : 1) {
        std::vector<u64> zero(width_, 0);
        intern(zero.data());
    }
    std::size_t width() const { return width_; }
    std::size_t size() const { return data_.size() / width_; }
    const u64* get(i32 id) const { return data_.data() + static_cast<std::size_t>(id) * width_; }

    i32 intern(const u64* words) {
        u64 h = hash_words(words, width_);
        auto range = index_.equal_range(h);
        for (auto it = range.first; it != range.second; ++it) {
            if (std::memcmp(get(it->second), words, width_ * 8) == 0) return it->second;
        }
        i32 id = static_cast<i32>(size());
        data_.insert(data_.end(), words, words + width_);
        index_.emplace(h, id);
        return id;
    }
    i32 intern(const std::vector<u64>& w) { return intern(w.data()); }

    bool intersects(i32 a, i32 b) const {
        const u64* x = get(a);
        const u64* y = get(b);
        for (std::size_t i = 0; i < width_; ++i)
            if (x[i] & y[i]) return true;
        return false;
    }
    bool empty(i32 a) const {
        const u64* x = get(a);
        for (std::size_t i = 0; i < width_; ++i)
            if (x[i]) return false;
        return true;
    }
    std::size_t bytes() const { return data_.capacity() * 8 + index_.size() * 32; }

  private:
    std::size_t width_;
    std::vector<u64> data_;
    std::unordered_multimap<u64, i32, U64Hash> index_;
};

// Small helpers over raw word arrays of one width.
struct Bits {
    static bool test(const u64* w, i32 i) { return (w[i >> 6] >> (i & 63)) & 1ULL; }
    static void set(u64* w, i32 i) { w[i >> 6] |= 1ULL << (i & 63); }
    static bool any_and(const u64* a, const u64* b, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] & b[i]) return true;
        return false;
    }
    static bool any(const u64* a, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            if (a[i]) return true;
        return false;
    }
    template <class F>
    static void for_each(const u64* w, std::size_t n, F&& f) {
        for (std::size_t i = 0; i < n; ++i) {
            u64 x = w[i];
            while (x) {
                int b = __builtin_ctzll(x);
                f(static_cast<i32>(i * 64 + b));
                x &= x - 1;
            }
        }
    }
};

}  // namespace tg
