#include "TypeLabel.h"

namespace btforge::dedup::detail {

void LabelMatcher::record(const ir::TypeGraph& g, const ir::TypeView& view) {
    struct Recorder {
        LabelMatcher& m;
        void number(uint64_t v) { m.fields_.push_back({{}, v, false}); }
        void text(std::string_view s) { m.fields_.push_back({s, 0, true}); }
        void ref(ir::TypeId id) { m.refs_.push_back(id); }
    };
    fields_.clear();
    refs_.clear();
    Recorder recorder{*this};
    describe(g, view, recorder);
}

bool LabelMatcher::matches(const ir::TypeGraph& g, const ir::TypeView& view) {
    // Walks the other label to its end even after a difference; types are small and a
    // difference is rare (callers compare types whose structural hashes are equal).
    struct Comparer {
        const std::vector<Field>& fields;
        size_t next = 0;
        bool equal = true;
        const Field* take() { return next < fields.size() ? &fields[next++] : nullptr; }
        void number(uint64_t v) {
            const Field* f = take();
            equal = equal && f && !f->isText && f->number == v;
        }
        void text(std::string_view s) {
            const Field* f = take();
            equal = equal && f && f->isText && f->text == s;
        }
        void ref(ir::TypeId) {}
    };
    Comparer comparer{fields_};
    describe(g, view, comparer);
    return comparer.equal && comparer.next == fields_.size();
}

} // namespace btforge::dedup::detail
