// Python bindings of the native core (module typedgen._native), built with nanobind.
//
// The only file that sees Python. Arrays come in as NumPy arrays and are copied (and checked)
// into the core's own structures at construction; per-token calls take plain ints and release
// the GIL while the engine works, so mask computation overlaps the model's forward pass.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <thread>

#include "automata.hpp"
#include "engine.hpp"
#include "vocab.hpp"

namespace nb = nanobind;
using namespace tg;

namespace {

template <class T>
using In1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using In2 = nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

PyObject* budget_error_type = nullptr;

template <class T>
std::vector<T> to_vec(const In1<T>& a) {
    return std::vector<T>(a.data(), a.data() + a.shape(0));
}

Dfa dfa_from(const In2<i32>& trans, const In1<bool>& accept) {
    if (trans.shape(1) != 256) throw InputError("a DFA table must have 256 columns");
    if (trans.shape(0) != accept.shape(0)) throw InputError("DFA table and accept flags differ in length");
    Dfa d;
    d.n = static_cast<i32>(trans.shape(0));
    d.trans.assign(trans.data(), trans.data() + trans.shape(0) * 256);
    d.accept.resize(static_cast<std::size_t>(d.n));
    for (i32 i = 0; i < d.n; ++i) d.accept[static_cast<std::size_t>(i)] = accept.data()[i] ? 1 : 0;
    return d;
}

nb::tuple dfa_to_py(Dfa&& d) {
    auto* trans = new std::vector<i32>(std::move(d.trans));
    auto* accept = new std::vector<u8>(std::move(d.accept));
    nb::capsule own_t(trans, [](void* p) noexcept { delete static_cast<std::vector<i32>*>(p); });
    nb::capsule own_a(accept, [](void* p) noexcept { delete static_cast<std::vector<u8>*>(p); });
    auto t = nb::ndarray<nb::numpy, i32, nb::ndim<2>>(trans->data(), {static_cast<std::size_t>(d.n), 256}, own_t);
    auto a = nb::ndarray<nb::numpy, bool, nb::ndim<1>>(reinterpret_cast<bool*>(accept->data()), {static_cast<std::size_t>(d.n)}, own_a);
    return nb::make_tuple(t, a);
}

void warn_if_slow(Engine& e) {
    if (e.take_slow_warning()) {
        if (PyErr_WarnEx(PyExc_RuntimeWarning,
                         "typedgen: a token table exceeded its budget; masks for that lexer state are"
                         " computed token by token (slow but exact). Prefer longest-match lexing for"
                         " overlapping terminals.",
                         2) < 0)
            throw nb::python_error();
    }
}

std::shared_ptr<Engine> make_engine(std::shared_ptr<const Vocab> vocab, nb::list terminals, i32 n_nonterminals,
                                    In1<i32> prod_lhs, In1<i32> rhs_start, In1<i32> rhs_syms, i32 start,
                                    In1<i32> ignore, In2<u64> follow, In1<u64> first, nb::dict limits) {
    GrammarSpec g;
    for (nb::handle item : terminals) {
        nb::tuple t = nb::cast<nb::tuple>(item);
        if (t.size() != 5) throw InputError("a terminal is (trans, accept, lexing, priority, literal)");
        TerminalSpec ts;
        ts.dfa = dfa_from(nb::cast<In2<i32>>(t[0]), nb::cast<In1<bool>>(t[1]));
        ts.lexing = nb::cast<i32>(t[2]);
        ts.priority = nb::cast<i64>(t[3]);
        ts.literal = nb::cast<bool>(t[4]);
        g.terms.push_back(std::move(ts));
    }
    const i32 nt = g.n_terms();
    g.width = nt ? (static_cast<std::size_t>(nt) + 63) / 64 : 1;
    g.n_nonterminals = n_nonterminals;
    g.start = start;
    if (rhs_start.shape(0) != prod_lhs.shape(0) + 1) throw InputError("rhs_start must have one entry per production plus one");
    for (std::size_t p = 0; p < prod_lhs.shape(0); ++p) {
        i64 a = rhs_start.data()[p], b = rhs_start.data()[p + 1];
        if (a < 0 || b < a || b > static_cast<i64>(rhs_syms.shape(0))) throw InputError("production offsets out of range");
        g.prod_lhs.push_back(prod_lhs.data()[p]);
        g.prod_rhs.emplace_back(rhs_syms.data() + a, rhs_syms.data() + b);
    }
    g.ignore = to_vec(ignore);
    if (follow.shape(0) != static_cast<std::size_t>(nt) || (nt && follow.shape(1) != g.width))
        throw InputError("follow sets have the wrong shape");
    for (i32 t = 0; t < nt; ++t) g.follow.emplace_back(follow.data() + static_cast<std::size_t>(t) * g.width, follow.data() + static_cast<std::size_t>(t + 1) * g.width);
    if (first.shape(0) != g.width) throw InputError("first set has the wrong width");
    g.first = to_vec(first);
    Limits lim;
    for (auto [k, v] : limits) {
        std::string key = nb::cast<std::string>(k);
        if (key == "lexer_states") lim.lexer_states = nb::cast<i64>(v);
        else if (key == "walk_budget") lim.walk_budget = nb::cast<i64>(v);
        else if (key == "mask_bytes") lim.mask_bytes = nb::cast<std::size_t>(v);
        else if (key == "pair_bytes") lim.pair_bytes = nb::cast<std::size_t>(v);
        else if (key == "table_bytes") lim.table_bytes = nb::cast<std::size_t>(v);
        else if (key == "transition_entries") lim.transition_entries = nb::cast<std::size_t>(v);
        else throw InputError("unknown engine limit " + key);
    }
    nb::gil_scoped_release release;
    return std::make_shared<Engine>(std::move(vocab), std::move(g), lim);
}

}  // namespace

NB_MODULE(_native, m) {
    m.doc() = "typedgen's native core: byte automata, the lazy lexer, Earley sets, token tables, masks.";
    // Engines and vocabularies live in caches until the interpreter exits: not leaks.
    nb::set_leak_warnings(false);
    budget_error_type = PyErr_NewException("typedgen._native.BudgetError", PyExc_RuntimeError, nullptr);
    m.attr("BudgetError") = nb::handle(budget_error_type);
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const BudgetError& e) {
            nb::object args = nb::make_tuple(e.code, std::string(e.what()), e.node, e.detail);
            PyErr_SetObject(budget_error_type, args.ptr());
        }
    });
    m.attr("FORMAT") = 1;

    m.def(
        "expr_to_dfa",
        [](In1<i32> prog, nb::list refs, i32 budget) {
            std::vector<i32> program = to_vec(prog);
            std::vector<Dfa> resolved;
            for (nb::handle r : refs) {
                nb::tuple t = nb::cast<nb::tuple>(r);
                resolved.push_back(dfa_from(nb::cast<In2<i32>>(t[0]), nb::cast<In1<bool>>(t[1])));
            }
            Dfa d;
            {
                nb::gil_scoped_release release;
                d = expr_to_dfa(program, resolved, budget);
            }
            return dfa_to_py(std::move(d));
        },
        nb::arg("program"), nb::arg("refs"), nb::arg("budget"),
        "The minimal DFA (trans, accept) of a serialised IR expression.");
    m.def(
        "minimized",
        [](In2<i32> trans, In1<bool> accept) {
            Dfa d = dfa_from(trans, accept);
            {
                nb::gil_scoped_release release;
                d = minimized(d);
            }
            return dfa_to_py(std::move(d));
        },
        "The minimal DFA of a DFA (trimmed, Hopcroft).");

    nb::class_<Vocab>(m, "Vocab")
        .def("__init__",
             [](Vocab* self, i32 size, In1<i64> offsets, In1<u8> flat, In1<bool> text, In1<i32> eos,
                In1<i32> child_start, In1<i32> child_node, In1<u8> child_byte, In1<i32> tok_start,
                In1<i32> tok_ids, In1<i32> subtree) {
                 TrieArrays tr{to_vec(child_start), to_vec(child_node), to_vec(tok_start), to_vec(tok_ids),
                               to_vec(subtree), to_vec(child_byte)};
                 std::vector<u8> text_flags(text.shape(0));
                 for (std::size_t i = 0; i < text.shape(0); ++i) text_flags[i] = text.data()[i] ? 1 : 0;
                 std::vector<i64> offs = to_vec(offsets);
                 std::vector<u8> bytes = to_vec(flat);
                 std::vector<i32> eos_ids = to_vec(eos);
                 nb::gil_scoped_release release;
                 new (self) Vocab(size, std::move(offs), std::move(bytes), std::move(text_flags), std::move(eos_ids),
                                  std::move(tr));
             })
        .def_prop_ro("size", &Vocab::size)
        .def_prop_ro("n_nodes", &Vocab::n_nodes)
        .def("nbytes", &Vocab::bytes);

    nb::class_<Engine>(m, "Engine")
        .def("__init__",
             [](Engine* self, std::shared_ptr<const Vocab>, nb::list, i32, In1<i32>, In1<i32>, In1<i32>, i32,
                In1<i32>, In2<u64>, In1<u64>, nb::dict) {
                 (void)self;
                 throw InputError("use typedgen._native.make_engine");
             })
        .def_prop_ro("initial", &Engine::initial)
        .def_prop_ro("n_words", &Engine::n_words)
        .def_prop_ro("vocab_size", &Engine::vocab_size)
        .def("prepare", &Engine::prepare, nb::call_guard<nb::gil_scoped_release>())
        .def("advance_token", &Engine::advance_token, nb::call_guard<nb::gil_scoped_release>())
        .def("advance_bytes",
             [](Engine& e, i32 state, nb::bytes data) {
                 const u8* p = reinterpret_cast<const u8*>(data.c_str());
                 std::size_t n = data.size();
                 nb::gil_scoped_release release;
                 return e.advance_bytes(state, p, n);
             })
        .def("is_complete", &Engine::is_complete, nb::call_guard<nb::gil_scoped_release>())
        .def("fill",
             [](Engine& e, i32 state, nb::ndarray<i32, nb::ndim<1>, nb::c_contig, nb::device::cpu> out) {
                 i32* p = out.data();
                 std::size_t n = out.shape(0);
                 {
                     nb::gil_scoped_release release;
                     e.fill(state, p, n);
                 }
                 warn_if_slow(e);
             })
        .def("mask_words",
             [](Engine& e, i32 state) {
                 std::shared_ptr<const Mask> mk;
                 {
                     nb::gil_scoped_release release;
                     mk = e.mask(state);
                 }
                 warn_if_slow(e);
                 auto* copy = new std::vector<u32>(*mk);
                 nb::capsule own(copy, [](void* p) noexcept { delete static_cast<std::vector<u32>*>(p); });
                 return nb::ndarray<nb::numpy, u32, nb::ndim<1>>(copy->data(), {copy->size()}, own);
             })
        .def("mask_any",
             [](Engine& e, i32 state) {
                 bool any;
                 {
                     nb::gil_scoped_release release;
                     any = e.mask_any(state);
                 }
                 warn_if_slow(e);
                 return any;
             })
        .def("allowed_bytes",
             [](Engine& e, i32 state) {
                 std::vector<u8> out;
                 {
                     nb::gil_scoped_release release;
                     out = e.allowed_bytes(state);
                 }
                 return nb::bytes(reinterpret_cast<const char*>(out.data()), out.size());
             })
        .def("forced_bytes",
             [](Engine& e, i32 state, i32 limit) {
                 std::string out;
                 {
                     nb::gil_scoped_release release;
                     out = e.forced_bytes(state, limit);
                 }
                 return nb::bytes(out.data(), out.size());
             })
        .def("shortest_completion",
             [](Engine& e, i32 state, i32 limit) -> nb::object {
                 std::optional<std::string> out;
                 {
                     nb::gil_scoped_release release;
                     out = e.shortest_completion(state, limit);
                 }
                 if (!out) return nb::none();
                 return nb::bytes(out->data(), out->size());
             })
        .def("lexer_alive_terms", &Engine::lexer_alive_terms)
        .def("text_kind", &Engine::text_kind, nb::call_guard<nb::gil_scoped_release>())
        .def("structure_bytes", &Engine::structure_bytes, nb::call_guard<nb::gil_scoped_release>())
        .def("cache_bytes", &Engine::cache_bytes, nb::call_guard<nb::gil_scoped_release>())
        .def("set_cache_limits", &Engine::set_cache_limits)
        .def("set_walk_budget", &Engine::set_walk_budget)
        .def("stats", [](Engine& e) {
            nb::dict d;
            for (const auto& [k, v] : e.stats()) d[k.c_str()] = v;
            return d;
        });

    m.def("make_engine", &make_engine, "Build an engine for a lowered grammar over a vocabulary.");

    m.def(
        "fill_batch",
        [](nb::list engines, In1<i32> states, In1<i32> rows, nb::ndarray<i32, nb::ndim<2>, nb::c_contig, nb::device::cpu> out,
           int threads) {
            std::vector<Engine*> es;
            for (nb::handle h : engines) es.push_back(nb::cast<Engine*>(h));
            std::vector<i32> st = to_vec(states), rw = to_vec(rows);
            i32* p = out.data();
            std::size_t n_rows = out.shape(0), width = out.shape(1);
            {
                nb::gil_scoped_release release;
                fill_batch(es, st, rw, p, n_rows, width, threads);
            }
            for (Engine* e : es) warn_if_slow(*e);
        },
        nb::arg("engines"), nb::arg("states"), nb::arg("rows"), nb::arg("out"), nb::arg("threads") = 0,
        "Fill bitmask rows of many matchers at once (GIL released, a small thread pool).");
    m.def("hardware_threads", [] { return static_cast<int>(std::thread::hardware_concurrency()); });
}
