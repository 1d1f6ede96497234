#include "Cli.h"

#include "PaholeCompat.h"

#include "btforge/dwarf/LoaderOptions.h"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace btforge::host {
namespace po = boost::program_options;
namespace {

constexpr const char* kUsage = R"(usage: btforge [global options] COMMAND [options]

Converts debug type information between formats: DWARF, BTF and bpftool's JSON in; BTF, JSON,
text and C headers out.

commands:
  convert INPUT -o OUT   convert INPUT with a loader plugin and write it with an emitter plugin
  convert INPUT... --out-dir DIR
                         convert each INPUT as alone, over one reading of the base (-B)
  dump INPUT             print INPUT's types as 'bpftool btf dump file' does (--json: as -j)
  diff A B               compare the types of A and B by meaning, ids aside (exit 1: different)

dump and diff read what a file carries: an ELF file's .BTF when it has one (as bpftool does),
its DWARF otherwise or with -f dwarf; convert makes BTF from the DWARF (-f btf: the .BTF).
  plugins                list the plugins found, and the ones that failed to load
  pahole-compat ARGS     encode BTF as 'pahole ARGS' does (kernel builds; also as a 'pahole' link)

loaders (-f): dwarf, llvm-dwarf, btf, json (the JSON of 'bpftool btf dump -j', edited or not)
emitters (-t): btf, btf-func-addr, json, text, c (a C header, as bpftool's 'format c'), layout
  (struct layouts, as pahole prints them)
'btforge plugins' lists the plugins found; 'btforge COMMAND --help' a command's options.
)";

po::options_description globalOptions() {
    po::options_description d("global options");
    d.add_options()("help,h", "show help")("version,V", "show the version")(
        "plugin-dir", po::value<std::vector<std::string>>()->composing(),
        "also look for plugins in DIR (repeatable; searched first)")(
        "plugin-opt", po::value<std::vector<std::string>>()->composing(),
        "NAME.KEY=VALUE: option KEY of plugin NAME (repeatable; 'btforge plugins' lists them)")(
        "jobs,j", po::value<std::string>(),
        "worker threads, 1 to 1024, at most one per CPU btforge may use (default, or 0: one per "
        "CPU; DWARF of less than 4 MB is read on one)")(
        "stream-limit", po::value<std::string>(),
        "read at most BYTES from an input that is not a regular file (a pipe; default 4G; "
        "K, M, G suffixes)")(
        "base-cache", po::value<std::string>(),
        "keep the base (-B) prepared in DIR, a directory only you may write, for later runs "
        "over the same base to map instead of reading it (a kernel build's modules; default: "
        "$BTFORGE_BASE_CACHE, else $XDG_CACHE_HOME/btforge or ~/.cache/btforge when it can be "
        "made)")("no-base-cache",
                 "neither read nor write prepared bases (as "
                 "BTFORGE_BASE_CACHE=off)")("quiet,q", "no progress or warnings on stderr")(
        "stats",
        "after a conversion, print on stderr the wall and CPU time of each phase, the serial "
        "fraction, the peak memory and what holds it, and counts (units, DIEs, types)");
    return d;
}

po::options_description convertOptions() {
    po::options_description d("convert options");
    d.add_options()("output,o", po::value<std::string>(), "output file ('-': standard output)")(
        "from,f", po::value<std::string>(),
        "loader plugin: dwarf, llvm-dwarf, btf, json (default: an ELF file's DWARF when it has "
        "some, else its .BTF; -f btf: the .BTF; bpftool's JSON by its content)")(
        "to,t", po::value<std::string>()->default_value("btf"),
        "emitter plugin: btf, btf-func-addr, json, text, c (a vmlinux.h, as bpftool's format c), "
        "layout (struct layouts, as pahole)")("base,B", po::value<std::string>(),
                                              "base BTF for split input and output")(
        "out-dir", po::value<std::string>(),
        "write each INPUT's output into DIR, named as the input (with --elf) or with the "
        "emitter's suffix (.btf, .json, .txt, .h); several INPUTs need it or --in-place, and "
        "share one reading of the base (-B)")(
        "features", po::value<std::string>(),
        "comma-separated feature names, pahole's (default: pahole's default set; 'none': no "
        "optional feature; layout writes the 2026 kind-layout section; distilled_base writes split "
        "BTF over a distilled base in .BTF.base, with --elf/--in-place; attributes tags arena "
        "kfuncs' pointers with kind_flag TYPE_TAGs)")(
        "lang-exclude", po::value<std::string>(),
        "skip DWARF units of these languages (comma-separated; '' for none; default: rust)")(
        "report-skipped", po::value<std::string>(),
        "write every function left out, with the reason, to FILE as JSON")(
        "list-skipped",
        "print one line per function left out on standard output, as pahole --verbose "
        "('NAME : skipping BTF encoding of function due to REASON')")(
        "no-dedup", "DWARF: keep every unit's types as read (to compare deduplicators)")(
        "nested-arrays",
        "DWARF: int m[3][4] as ARRAY of ARRAY, as LLVM writes it (default: one ARRAY of 12, as "
        "pahole writes kernels' BTF and CO-RE programs expect)")(
        "func-addr", po::value<std::string>(),
        "functions at several addresses: keep (one FUNC per address, implied by -t "
        "btf-func-addr), merge (to standard BTF), decl-tag (the RFC's address=0x... tags)")(
        "func-addr-base", po::value<std::string>(),
        "DWARF: FUNC addresses are relative to this symbol when the input has it ('' = absolute; "
        "default: _text)")("elf",
                           "write OUT as a copy of the ELF INPUT with the BTF as its .BTF section")(
        "in-place", "replace INPUT's .BTF section (or add one), atomically; no -o")(
        "dwarf-alt", po::value<std::string>(),
        "DWARF: the file INPUT's .gnu_debugaltlink names (dwz -m), instead of looking for it")(
        "keep", po::value<std::vector<std::string>>()->multitoken()->composing(),
        "keep only the types these names need (after INPUT; comma-separated lists too)")(
        "drop", po::value<std::vector<std::string>>()->multitoken()->composing(),
        "drop the types of these names and what only they need")(
        "carried", "read what an ELF file carries: its .BTF when it has one, its DWARF otherwise "
                   "(as dump does; -t layout as pahole -F btf,dwarf)");
    return d;
}

// The layout emitter's options (-t layout, docs/layout.md), as pahole spells them where it can.
struct LayoutShorthand {
    const char* option; // Boost's "long,short"
    const char* key;
    bool takesValue;
    const char* help;
};
constexpr LayoutShorthand kLayoutShorthands[] = {
    {"class,C", "class", true, "only these structs, unions, enums, typedefs (comma-separated)"},
    {"expand,E", "expand", false, "member types written out in full"},
    {"hex", "hex", false, "offsets and sizes in hexadecimal"},
    {"sizes", "sizes", false, "one line per type: name, size, number of holes"},
    {"holes", "holes", true, "only types with at least N holes"},
    {"structs", "structs", false, "structs only, no unions"},
    {"data-members", "data-members", false, "members only, not types declared in a struct"},
    {"cacheline", "cacheline", true, "cacheline size in bytes (default 64)"},
    {"skip-missing", "skip-missing", false, "a --class name not found is a warning"},
};

po::options_description layoutOptions() {
    po::options_description d("layout options (-t layout: struct and union layouts, as pahole)");
    for (const LayoutShorthand& s : kLayoutShorthands) {
        if (s.takesValue)
            d.add_options()(s.option, po::value<std::string>(), s.help);
        else
            d.add_options()(s.option, s.help);
    }
    return d;
}

Expected<FuncAddrMode> parseFuncAddrMode(const std::string& mode) {
    for (auto [name, value] :
         {std::pair{"keep", FuncAddrMode::Keep}, std::pair{"merge", FuncAddrMode::Merge},
          std::pair{"decl-tag", FuncAddrMode::DeclTag}}) {
        if (mode == name)
            return value;
    }
    return Error::usage("--func-addr: unknown mode '" + mode + "' (keep, merge, decl-tag)");
}

po::options_description dumpOptions() {
    po::options_description d("dump options");
    d.add_options()("json", "JSON as 'bpftool btf dump file X -j' prints it")(
        "from,f", po::value<std::string>(),
        "loader plugin (default: an ELF file's .BTF when it has one, as bpftool; its DWARF "
        "otherwise; -f dwarf: the DWARF)")("base,B", po::value<std::string>(),
                                           "base BTF for split input");
    return d;
}

// As --kinds takes them: "INT,STRUCT,...".
std::string matchedKindNames() {
    std::string names;
    for (ir::Kind kind : compare::matchedKinds()) {
        if (!names.empty())
            names += ',';
        names += ir::kindName(kind);
    }
    return names;
}

po::options_description diffOptions() {
    po::options_description d("diff options");
    auto add = d.add_options();
    add("from,f", po::value<std::string>(),
        "loader plugin for both inputs (default: an ELF file's .BTF when it has one, its DWARF "
        "otherwise; -f dwarf: the DWARF)");
    add("from-a", po::value<std::string>(), "loader plugin for A (overrides -f)");
    add("from-b", po::value<std::string>(), "loader plugin for B (overrides -f)");
    add("base,B", po::value<std::string>(), "base BTF that both inputs continue (split BTF)");
    add("json", "print the report as JSON");
    add("kinds", po::value<std::string>(),
        ("compare only these kinds, comma-separated: " + matchedKindNames()).c_str());
    add("max", po::value<int64_t>(), "list at most N differences (all are counted)");
    add("strict-fwd", "a FWD differs from the STRUCT or UNION it declares, in references too");
    add("flatten-arrays",
        "compare int [3][4] as int [12] (pahole and btforge flatten, LLVM nests)");
    return d;
}

std::string helpText(const std::string& synopsis, const po::options_description& options) {
    std::ostringstream out;
    out << "usage: btforge " << synopsis << "\n\n" << options << "\n" << globalOptions();
    return out.str();
}

std::vector<std::string> splitList(const std::string& list) {
    std::vector<std::string> items;
    std::istringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        if (!item.empty())
            items.push_back(item);
    }
    return items;
}

template <typename T> std::optional<T> optional(const po::variables_map& vm, const char* name) {
    return vm.count(name) ? std::optional<T>(vm[name].as<T>()) : std::nullopt;
}

Expected<ConvertCommand> parseConversion(const std::string& name,
                                         const std::vector<std::string>& args) {
    bool isDump = name == "dump";
    po::options_description options = isDump ? dumpOptions() : convertOptions();
    if (!isDump)
        options.add(layoutOptions());
    options.add_options()("input", po::value<std::vector<std::string>>(), "input files");
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);

    ConvertCommand command;
    ConversionRequest& request = command.request;
    if (!vm.count("input"))
        return Error::usage(name + ": missing INPUT");
    command.inputs = vm["input"].as<std::vector<std::string>>();
    if (isDump && command.inputs.size() > 1)
        return Error::usage("dump: one INPUT only");
    request.source.input = command.inputs.front();
    request.source.loader = optional<std::string>(vm, "from");
    request.source.base = optional<std::string>(vm, "base");
    if (isDump) {
        request.source.carried = true;
        request.emitter = vm.count("json") ? "json" : "text";
        request.output = "-";
        return command;
    }
    request.intoElf = vm.count("elf") || vm.count("in-place");
    request.inPlace = vm.count("in-place") > 0;
    command.outDir = optional<std::string>(vm, "out-dir");
    const bool batch = command.isBatch();
    if (request.inPlace && command.outDir)
        return Error::usage("convert: --in-place writes each INPUT itself; drop --out-dir");
    if (batch && vm.count("output"))
        return Error::usage("convert: -o names one output: several INPUTs (or --out-dir) write "
                            "into --out-dir DIR or --in-place");
    if (request.inPlace) {
        if (vm.count("output"))
            return Error::usage("convert: --in-place writes INPUT itself; drop -o");
        request.output = request.source.input;
    } else if (batch) {
        if (!command.outDir)
            return Error::usage("convert: several INPUTs write into --out-dir DIR or --in-place");
    } else if (!vm.count("output")) {
        return Error::usage("convert: missing -o OUT (use '-o -' for standard output)");
    } else {
        request.output = vm["output"].as<std::string>();
    }
    request.emitter = vm["to"].as<std::string>();
    request.source.carried = vm.count("carried") > 0;
    for (const LayoutShorthand& s : kLayoutShorthands) {
        std::string option(s.option);
        option = option.substr(0, option.find(','));
        if (vm.count(option))
            command.emitterOptions.push_back(
                {"--" + option, s.key, s.takesValue ? vm[option].as<std::string>() : "true"});
    }
    if (request.intoElf && !batch && request.output == "-")
        return Error::usage("convert: --elf and --in-place write BTF into an ELF file: no -t, no "
                            "'-o -'");
    for (auto [option, names] : {std::pair{"keep", &request.keep}, {"drop", &request.drop}}) {
        for (const std::string& list :
             optional<std::vector<std::string>>(vm, option).value_or(std::vector<std::string>{})) {
            auto items = splitList(list);
            // An empty list would keep (or drop) nothing by name: --keep '' kept everything.
            if (items.empty())
                return Error::usage("convert: --" + std::string(option) +
                                    " needs at least one type name");
            names->insert(names->end(), items.begin(), items.end());
        }
    }
    if (!request.keep.empty() && !request.drop.empty())
        return Error::usage("convert: --keep and --drop do not go together");
    if (auto features = optional<std::string>(vm, "features"))
        command.options.features = splitList(*features);
    if (auto report = optional<std::string>(vm, "report-skipped"))
        request.reportSkipped = *report;
    request.listSkipped = vm.count("list-skipped") > 0;
    if (batch && (request.listSkipped || !request.reportSkipped.empty()))
        return Error::usage("convert: --report-skipped and --list-skipped report on one INPUT");
    if (request.listSkipped && request.output == "-")
        return Error::usage("convert: --list-skipped prints on standard output: use -o FILE");
    if (auto mode = optional<std::string>(vm, "func-addr")) {
        auto parsed = parseFuncAddrMode(*mode);
        if (!parsed)
            return std::move(parsed).error();
        request.funcAddr = *parsed;
    }
    // The DWARF loaders' options, by their shorthands (LoaderOptions.h).
    for (auto [flag, key] : {std::pair{"lang-exclude", dwarf::kLanguageExcludeOption},
                             {"dwarf-alt", dwarf::kDwarfAltOption},
                             {"func-addr-base", dwarf::kFuncAddrBaseOption}}) {
        if (auto value = optional<std::string>(vm, flag))
            command.loaderOptions[key] = *value;
    }
    if (vm.count("no-dedup"))
        command.loaderOptions[dwarf::kDedupOption] = "false";
    // The types -t layout shows by name: DWARF units are read until they are found.
    if (auto names = optional<std::string>(vm, "class"))
        command.loaderOptions[dwarf::kReadUntilOption] = *names;
    if (vm.count("nested-arrays"))
        command.loaderOptions[dwarf::kNestedArraysOption] = "true";
    return command;
}

Expected<std::bitset<ir::kMaxKind + 1>> parseKinds(const std::string& list) {
    std::bitset<ir::kMaxKind + 1> selected;
    for (std::string item : splitList(list)) {
        std::transform(item.begin(), item.end(), item.begin(),
                       [](unsigned char c) { return std::toupper(c); });
        auto kinds = compare::matchedKinds();
        auto kind = std::find_if(kinds.begin(), kinds.end(),
                                 [&](ir::Kind k) { return ir::kindName(k) == item; });
        if (kind == kinds.end())
            return Error::usage("diff: --kinds: '" + item + "' is not one of " +
                                matchedKindNames());
        selected.set(static_cast<size_t>(*kind));
    }
    if (selected.none())
        return Error::usage("diff: --kinds names no kind");
    return selected;
}

Expected<DiffCommand> parseDiff(const std::vector<std::string>& args) {
    po::options_description options = diffOptions();
    auto add = options.add_options();
    add("a", po::value<std::string>(), "first input");
    add("b", po::value<std::string>(), "second input");
    po::positional_options_description positional;
    positional.add("a", 1).add("b", 1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);

    if (!vm.count("a") || !vm.count("b"))
        return Error::usage("diff: needs two inputs, A and B");
    DiffCommand command;
    DiffRequest& request = command.request;
    request.a.input = vm["a"].as<std::string>();
    request.b.input = vm["b"].as<std::string>();
    auto both = optional<std::string>(vm, "from");
    request.a.loader = vm.count("from-a") ? optional<std::string>(vm, "from-a") : both;
    request.b.loader = vm.count("from-b") ? optional<std::string>(vm, "from-b") : both;
    request.a.base = request.b.base = optional<std::string>(vm, "base");
    request.a.carried = request.b.carried = true;
    request.json = vm.count("json") > 0;
    request.options.strictForwards = vm.count("strict-fwd") > 0;
    request.options.flattenArrays = vm.count("flatten-arrays") > 0;
    if (auto list = optional<std::string>(vm, "kinds")) {
        auto kinds = parseKinds(*list);
        if (!kinds)
            return std::move(kinds).error();
        request.options.kinds = *kinds;
    }
    if (auto max = optional<int64_t>(vm, "max")) {
        if (*max < 0)
            return Error::usage("diff: --max must not be negative");
        request.options.maxListed = static_cast<size_t>(*max);
    }
    return command;
}

// A decimal count up to `max` (at most 2^48); with `sizes`, a K, M or G suffix (powers of 1024).
Expected<uint64_t> parseCount(std::string text, const char* option, uint64_t max, bool sizes) {
    const std::string given = text;
    unsigned shift = 0;
    if (sizes && !text.empty()) {
        shift = text.back() == 'K' ? 10 : text.back() == 'M' ? 20 : text.back() == 'G' ? 30 : 0;
        if (shift)
            text.pop_back();
    }
    uint64_t value = 0;
    bool valid = !text.empty();
    for (char c : text) {
        valid = valid && std::isdigit(static_cast<unsigned char>(c)) && value <= max;
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!valid || value > (max >> shift))
        return Error::usage(std::string(option) + ": '" + given + "' is not a number from 0 to " +
                            std::to_string(max));
    return value << shift;
}

Expected<Command> parse(int argc, const char* const* argv) {
    po::options_description global = globalOptions();
    po::options_description hidden;
    hidden.add_options()("command",
                         po::value<std::string>())("args", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(global).add(hidden);
    po::positional_options_description positional;
    positional.add("command", 1).add("args", -1);

    po::parsed_options parsed = po::command_line_parser(argc, argv)
                                    .options(all)
                                    .positional(positional)
                                    .allow_unregistered()
                                    .run();
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);

    Command command;
    if (vm.count("plugin-dir"))
        command.global.pluginDirs = vm["plugin-dir"].as<std::vector<std::string>>();
    if (vm.count("plugin-opt"))
        command.global.pluginOptions = vm["plugin-opt"].as<std::vector<std::string>>();
    if (vm.count("jobs")) {
        auto jobs = parseCount(vm["jobs"].as<std::string>(), "-j", kMaxJobs, false);
        if (!jobs)
            return std::move(jobs).error();
        command.global.jobs = static_cast<unsigned>(*jobs);
    }
    if (vm.count("stream-limit")) {
        auto limit = parseCount(vm["stream-limit"].as<std::string>(), "--stream-limit",
                                uint64_t(1) << 48, true);
        if (!limit)
            return std::move(limit).error();
        command.global.streamLimit = *limit;
    }
    if (vm.count("base-cache"))
        command.global.baseCache = vm["base-cache"].as<std::string>();
    command.global.noBaseCache = vm.count("no-base-cache") > 0;
    if (command.global.baseCache && command.global.noBaseCache)
        return Error::usage("--base-cache and --no-base-cache: give one or the other");
    command.global.quiet = vm.count("quiet") > 0;
    command.global.stats = vm.count("stats") > 0;

    if (!vm.count("command")) {
        if (vm.count("version")) {
            command.action = InfoCommand{"btforge " BTFORGE_VERSION "\n"};
            return command;
        }
        if (vm.count("help")) {
            std::ostringstream out;
            out << kUsage << "\n" << global;
            command.action = InfoCommand{out.str()};
            return command;
        }
        return Error::usage("missing COMMAND (see 'btforge --help')");
    }
    std::string name = vm["command"].as<std::string>();
    std::vector<std::string> args =
        po::collect_unrecognized(parsed.options, po::include_positional);
    args.erase(args.begin()); // the command itself

    if (name == "plugins") {
        if (vm.count("help"))
            command.action = InfoCommand{helpText("plugins", po::options_description("plugins"))};
        else if (!args.empty())
            return Error::usage("plugins: unexpected argument '" + args.front() + "'");
        else
            command.action = PluginsCommand{};
        return command;
    }
    if (name == "convert" || name == "dump") {
        if (vm.count("help")) {
            command.action = InfoCommand{
                name == "dump"
                    ? helpText("dump INPUT [--json] [-B BASE] [-f LOADER]", dumpOptions())
                    : helpText(
                          "convert INPUT (-o OUT [--elf] | --in-place) [-f LOADER] "
                          "[-t EMITTER] [-B BASE]\n"
                          "                       [--features F,...] "
                          "[--keep NAME... | --drop NAME...]\n"
                          "       btforge convert INPUT... (--out-dir DIR [--elf] | --in-place) "
                          "[-B BASE] [options]",
                          po::options_description().add(convertOptions()).add(layoutOptions()))};
            return command;
        }
        auto conversion = parseConversion(name, args);
        if (!conversion)
            return std::move(conversion).error();
        command.action = std::move(*conversion);
        return command;
    }
    if (name == "diff") {
        if (vm.count("help")) {
            command.action = InfoCommand{helpText(
                "diff A B [-f LOADER] [--from-a LOADER] [--from-b LOADER] [-B BASE] [--json]\n"
                "                    [--kinds K1,K2,...] [--max N] [--strict-fwd] "
                "[--flatten-arrays]\n\n"
                "Compares the types of A and B by kind, name and meaning, whatever their ids.\n"
                "Exit status: 0 equal, 1 different, 2 error",
                diffOptions())};
            return command;
        }
        auto diff = parseDiff(args);
        if (!diff)
            return std::move(diff).error();
        command.action = std::move(*diff);
        return command;
    }
    if (name == "pahole-compat")
        return Error::usage(
            "pahole-compat takes pahole's options alone: 'btforge pahole-compat ARGS'");
    return Error::usage("unknown command '" + name + "' (see 'btforge --help')");
}

// pahole's arguments run as the btforge command they translate to.
Expected<Command> parsePahole(const char* program, const std::vector<std::string>& args) {
    std::vector<std::string> warnings;
    auto translated = translatePaholeArguments(args, warnings);
    if (!translated)
        return std::move(translated).error();
    for (const std::string& warning : warnings)
        std::fprintf(stderr, "btforge: warning: %s\n", warning.c_str());
    if (auto* text = std::get_if<std::string>(&*translated))
        return Command{{}, InfoCommand{*text}};
    std::vector<const char*> argv{program};
    for (const std::string& arg : std::get<std::vector<std::string>>(*translated))
        argv.push_back(arg.c_str());
    return parse(static_cast<int>(argv.size()), argv.data());
}

} // namespace

Expected<Command> parseCommandLine(int argc, const char* const* argv) {
    try {
        if (std::vector<std::string> paholeArgs; isPaholeInvocation(argc, argv, paholeArgs))
            return parsePahole(argv[0], paholeArgs);
        return parse(argc, argv);
    } catch (const po::error& e) {
        return Error::usage(e.what());
    }
}

} // namespace btforge::host
