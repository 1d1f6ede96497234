#!/usr/bin/env bash
# base-cache.sh VMLINUX MODULE... : --base-cache DIR (and $BTFORGE_BASE_CACHE), the base prepared
# once and mapped by later runs.
#  - every module's output, from a cold cache and then a warm one, is byte-identical to its
#    conversion without a cache; the first run prepares one image (mode 0600), the next ones read
#    it (--stats counts both);
#  - a changed base finds no image: it is read again and prepared anew;
#  - an image cut short, or one the user does not own alone (group-writable), is not read; a
#    link in its place is not followed; the output stays the same;
#  - a directory others may write, or none at all, is refused with one warning, and the run
#    goes on without a cache;
#  - no more than four images are kept;
#  - by default (no option, $BTFORGE_BASE_CACHE unset) the cache is $XDG_CACHE_HOME/btforge,
#    else ~/.cache/btforge, made mode 0700 (a missing $XDG_CACHE_HOME too), for convert, dump
#    and diff alike; none, and nothing made, with --no-base-cache, with BTFORGE_BASE_CACHE=off,
#    for a run without a base, or under a home that is not the user's;
#  - runs started together on a cold cache prepare one image between them.
source "$(dirname "$0")/lib.sh"
vmlinux=$1
shift
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
for module in "$@"; do
    require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"
done
# A copy of the base this test may touch (a changed base) and whose images are its own.
cp "$vmlinux" "$work/vmlinux"
base=$work/vmlinux
cache=$work/cache
mkdir -m 700 "$cache"

# convert MODULE OUT [btforge options...]: one module over the copied base, stats kept.
convert() {
    local module=$1 out=$2
    shift 2
    "$BTFORGE" --stats "$@" convert -B "$base" "$module" -o "$out" 2> "$work/stderr" ||
        { cat "$work/stderr"; fail "$(basename "$module"): conversion failed"; }
}
images() { find "$cache" -name 'base-*.img' | wc -l; }
counted() { grep -q "$1 1" "$work/stderr"; }

for module in "$@"; do
    name=$(basename "$module")
    convert "$module" "$work/$name.plain" --quiet
done

first=$1
convert "$first" "$work/cold.btf" --base-cache "$cache"
counted "bases prepared" || fail "a cold cache did not prepare the base"
[ "$(images)" = 1 ] || fail "a cold cache holds $(images) images, not 1"
image=$(find "$cache" -name 'base-*.img')
[ "$(stat -c %a "$image")" = 600 ] || fail "the image has mode $(stat -c %a "$image"), not 600"
grep -v "^btforge: stats\|^  " "$work/stderr" && fail "a cold cache printed more than stats"
cmp "$work/cold.btf" "$work/$(basename "$first").plain" || fail "cold cache: the output differs"
for module in "$@"; do
    name=$(basename "$module")
    BTFORGE_BASE_CACHE=$cache convert "$module" "$work/$name.warm"
    counted "bases from the cache" || fail "$name: a warm cache was not read"
    cmp "$work/$name.warm" "$work/$name.plain" || fail "$name: warm cache: the output differs"
    "$BTF_ORACLE" parse "$work/$name.warm" "$vmlinux" > /dev/null ||
        fail "$name: libbpf rejects the output"
done
echo "cold and warm caches give the outputs of no cache; the image has mode 0600"

# A changed base (its change time moves): not the image's; read again and prepared anew.
touch "$base"
convert "$first" "$work/changed.btf" --base-cache "$cache"
counted "bases prepared" || fail "a changed base was taken from the cache"
[ "$(images)" = 2 ] || fail "a changed base did not get an image of its own"
cmp "$work/changed.btf" "$work/cold.btf" || fail "changed base: the output differs"
echo "a changed base is read again"

image=$(ls -t "$cache"/base-*.img | head -n 1)
# Cut short: not read, and replaced by a whole one.
truncate -s 4096 "$image"
convert "$first" "$work/cut.btf" --base-cache "$cache"
counted "bases prepared" || fail "an image cut short was read"
cmp "$work/cut.btf" "$work/cold.btf" || fail "image cut short: the output differs"
# Writable by the group: not the user's alone, not read.
chmod 620 "$image"
convert "$first" "$work/shared.btf" --base-cache "$cache"
counted "bases from the cache" && fail "a group-writable image was read"
cmp "$work/shared.btf" "$work/cold.btf" || fail "group-writable image: the output differs"
# A link in the image's place: not followed.
good=$work/good.img
mv "$image" "$good"
ln -s "$good" "$image"
convert "$first" "$work/link.btf" --base-cache "$cache"
counted "bases from the cache" && fail "a link in the image's place was followed"
cmp "$work/link.btf" "$work/cold.btf" || fail "linked image: the output differs"
echo "images cut short, group-writable or linked are not read"

# Directories that cannot serve: a warning, and the run goes on.
mkdir -m 775 "$work/open"
convert "$first" "$work/open.btf" --base-cache "$work/open"
grep -q "^btforge: warning: $work/open: --base-cache: " "$work/stderr" ||
    fail "a group-writable cache directory was not refused with a warning"
[ -z "$(ls -A "$work/open")" ] || fail "something was written into a refused directory"
convert "$first" "$work/none.btf" --base-cache "$work/none"
grep -q "^btforge: warning: $work/none: --base-cache: " "$work/stderr" ||
    fail "a missing cache directory was not reported"
[ ! -e "$work/none" ] || fail "a missing cache directory was created"
cmp "$work/open.btf" "$work/cold.btf" && cmp "$work/none.btf" "$work/cold.btf" ||
    fail "without a usable cache, the output differs"
echo "unusable cache directories are warned about and skipped"

# At most four images: six bases, the oldest dropped.
for i in 1 2 3 4 5 6; do
    touch "$base"
    convert "$first" "$work/many.btf" --base-cache "$cache"
done
[ "$(images)" = 4 ] || fail "$(images) images kept, not 4"
echo "four images kept"

# The default cache: under the user's cache home, made when missing.
home=$work/home
mkdir -m 755 "$home"
# default COMMAND...: COMMAND (convert, or a program) as a user without a cache setting.
default() { (
    unset BTFORGE_BASE_CACHE XDG_CACHE_HOME
    export HOME=$home
    "$@"
); }
default convert "$first" "$work/default.btf"
counted "bases prepared" || fail "the default cache did not prepare the base"
[ "$(stat -c %a "$home/.cache/btforge")" = 700 ] ||
    fail "the default cache directory is not $home/.cache/btforge, mode 700"
default convert "$first" "$work/default2.btf"
counted "bases from the cache" || fail "the default cache was not read"
cmp "$work/default.btf" "$work/cold.btf" && cmp "$work/default2.btf" "$work/cold.btf" ||
    fail "default cache: the output differs"
mkdir -m 700 "$work/xdg"
default env XDG_CACHE_HOME="$work/xdg" "$BTFORGE" convert -B "$base" "$first" -o "$work/xdg.btf"
[ "$(find "$work/xdg/btforge" -name 'base-*.img' | wc -l)" = 1 ] ||
    fail "\$XDG_CACHE_HOME did not hold the default cache"
# A $XDG_CACHE_HOME that does not exist yet is made, with what is missing above it (XDG spec).
default env XDG_CACHE_HOME="$work/fresh/xdg" "$BTFORGE" convert -B "$base" "$first" \
    -o "$work/fresh.btf"
[ "$(find "$work/fresh/xdg/btforge" -name 'base-*.img' | wc -l)" = 1 ] ||
    fail "a missing \$XDG_CACHE_HOME was not made to hold the default cache"
[ "$(stat -c %a "$work/fresh")" = 700 ] && [ "$(stat -c %a "$work/fresh/xdg")" = 700 ] ||
    fail "a missing \$XDG_CACHE_HOME was not made with mode 700"
cmp "$work/fresh.btf" "$work/cold.btf" || fail "a missing \$XDG_CACHE_HOME: the output differs"
# diff over a base uses it too (either side), and so does dump.
rm -rf "$home/.cache"
default "$BTFORGE" diff -B "$base" "$first" "$work/cold.btf" > /dev/null ||
    fail "diff over the base: the module and its conversion differ"
[ "$(find "$home/.cache/btforge" -name 'base-*.img' | wc -l)" = 1 ] ||
    fail "diff over a base did not prepare it in the default cache"
default "$BTFORGE" --stats dump -B "$base" "$first" > /dev/null 2> "$work/stderr"
counted "bases from the cache" || fail "dump over a base did not read the default cache"
echo "the default cache is ~/.cache/btforge, or \$XDG_CACHE_HOME/btforge; convert, dump and diff use it"

# No default cache: asked for none, no base, or a home of another user's.
rm -rf "$home/.cache"
default convert "$first" "$work/off.btf" --no-base-cache
default env BTFORGE_BASE_CACHE=off "$BTFORGE" convert -B "$base" "$first" -o "$work/off2.btf"
default "$BTFORGE" convert "$first" -o "$work/nobase.btf"
[ ! -e "$home/.cache" ] || fail "a run asked for no cache, or without a base, made one"
cmp "$work/off.btf" "$work/cold.btf" && cmp "$work/off2.btf" "$work/cold.btf" ||
    fail "no cache: the output differs"
if [ "$(id -u)" = 0 ]; then
    chown nobody "$home"
    default convert "$first" "$work/theirs.btf"
    [ ! -e "$home/.cache" ] || fail "root made a cache in another user's home"
    chown root "$home"
fi
"$BTFORGE" --no-base-cache --base-cache "$cache" convert -B "$base" "$first" -o "$work/both.btf" \
    2> "$work/stderr" && fail "--no-base-cache with --base-cache was accepted"
grep -q "give one or the other" "$work/stderr" || fail "--no-base-cache with --base-cache: no reason"
echo "no default cache when asked for none, without a base, or in another user's home"

# A build's first modules start together: one of them prepares the image, the others do not.
rm -rf "$home/.cache"
for i in 1 2 3 4; do
    default "$BTFORGE" --stats convert -B "$base" "$first" -o "$work/together$i.btf" \
        2> "$work/together$i.stderr" &
done
wait
[ "$(cat "$work"/together*.stderr | grep -c "bases prepared 1")" = 1 ] ||
    fail "runs started together prepared $(cat "$work"/together*.stderr | grep -c "bases prepared 1") images, not 1"
for i in 1 2 3 4; do
    cmp "$work/together$i.btf" "$work/cold.btf" || fail "run $i of four together: the output differs"
done
echo "four runs started together prepare one image"
