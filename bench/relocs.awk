# bench/relocs.awk - what the relative relocations of a static PIE point from and to
# (bench/startup.sh runs it on the unstripped build; read there how its inputs are made).
#
# Inputs, in this order on the command line:
#   SECS   "NAME ADDR OFFSET SIZE" per allocated section (hex, readelf -SW)
#   WORDS  .data.rel.ro as unsigned 64-bit words, one a line, in order (decimal, od)
#   RODATA .rodata as hex digits, any line breaks (od -tx1)
#   SYMS   "ADDR SIZE TYPE NAME" (hex, nm -C -S --defined-only)
#   REFS   "ADDR<TAB>FUNCTION" sorted by ADDR (decimal): each address in .data.rel.ro or
#          .got that code takes (the "# ADDR <...>" comments of objdump -d), and the
#          function whose code takes it
#   RELS   "OFFSET ADDEND" per R_X86_64_RELATIVE relocation (hex, readelf -rW)
# Output (tab-separated):
#   T  relocations
#   K  KIND  ORIGIN  count          per kind of pointer and origin of the object
#   B  count  KIND  OBJECT  SAMPLE  per object holding relocations (OBJECT: its symbol,
#                                   else the functions that take its address)
# KIND: str (a &str: a pointer into .rodata followed by a plausible length), loc (a
# panic Location: a &str naming a .rs file), rodata (another pointer into .rodata), fn (a
# pointer into .text), got (a GOT entry: attributed to the function it holds, all of them
# to one object), data (a pointer from .data.rel.ro to writable data), other (init/fini
# arrays, .data, TLS).
# ORIGIN: uverbs, std (core, alloc, std), std-deps (crates std links: miniz_oxide,
# gimli, addr2line, rustc-demangle, ...), crates (other dependencies), c (musl,
# libunwind: names without "::"), unknown.

function hex(s,    i, v) {
  s = tolower(s); sub(/^0x/, "", s); v = 0
  for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
  return v
}
function secof(a,    i) {
  for (i = 1; i <= ns; i++) if (a >= sa[i] && a < sa[i] + sz[i]) return sn[i]
  return "?"
}
function secstart(name,    i) { for (i = 1; i <= ns; i++) if (sn[i] == name) return sa[i]; return -1 }
function secsize(name,    i) { for (i = 1; i <= ns; i++) if (sn[i] == name) return sz[i]; return 0 }
# the bytes of .rodata at A, N of them, printable ASCII kept, the rest as "."
function rostr(a, n,    off, s, i, h) {
  off = a - rostart; s = ""
  for (i = 0; i < n; i++) {
    h = substr(rod, 2 * (off + i) + 1, 2)
    s = s ((h in chr) ? chr[h] : ".")
  }
  return s
}
function rsuffix(a, n) { return (n >= 3 && rostr(a + n - 3, 3) == ".rs") }
# the crate a Rust path starts with ("<uverbs::x as core::fmt::Debug>::fmt" -> uverbs)
function crate_of(f) {
  if (f ~ /^(vtable|typeinfo|typeinfo name|VTT) for /) return "c"
  sub(/^[<&*( ]+/, "", f); sub(/^(const|mut|dyn) /, "", f); sub(/^[<&*( ]+/, "", f)
  if (f !~ /::/) return "c"
  sub(/::.*/, "", f)
  return f
}
function origin_of(c) {
  if (c == "uverbs") return "uverbs"
  if (c == "std" || c == "core" || c == "alloc" || c == "panic_unwind" || c == "panic_abort") return "std"
  if (c == "c") return "c"
  if (c in stddeps) return "std-deps"
  if (c == "") return "unknown"
  return "crates"
}
# a panic Location's file: src/... is the crate's, /rustc/HASH/library/X the standard
# library's, .../NAME-VERSION/src/... a dependency's
function origin_of_file(s,    n, i, c) {
  if (s ~ /^src\//) return "uverbs"
  if (s ~ /\/library\//) return "std"
  n = split(s, c, "/")
  for (i = n - 1; i >= 1; i--)
    if (c[i] ~ /^[A-Za-z0-9_-]+-[0-9]+\.[0-9]+\.[0-9]+/ && c[i + 1] == "src") {
      sub(/-[0-9]+\.[0-9]+\.[0-9]+.*/, "", c[i]); gsub(/-/, "_", c[i])
      return origin_of(c[i])
    }
  return "unknown"
}
function clean(s) { gsub(/[|`]/, "'", s); gsub(/\t/, " ", s); if (length(s) > 60) s = substr(s, 1, 57) "..."; return s }

BEGIN {
  FS = "[ \t]+"
  for (i = 32; i < 127; i++) chr[sprintf("%02x", i)] = sprintf("%c", i)
  split("miniz_oxide gimli addr2line rustc_demangle object adler2 adler memchr hashbrown std_detect cfg_if libc unwind compiler_builtins", d, " ")
  for (i in d) stddeps[d[i]] = 1
  file = 0
}
FNR == 1 { file++ }
file == 1 { if (NF >= 4) { sn[++ns] = $1; sa[ns] = hex($2); so[ns] = hex($3); sz[ns] = hex($4) } next }
file == 2 { sub(/^ +/, ""); if ($0 != "") w[nw++] = $1 + 0; next }
file == 3 { gsub(/[ \t]/, ""); rod = rod $0; next }
file == 4 {
  # ADDR SIZE TYPE NAME... (NAME may hold spaces)
  if ($2 ~ /^[0-9a-f]+$/ && $3 ~ /^[A-Za-z]$/ && NF >= 4) {
    a = hex($1); s = hex($2); t = $3; n = $0; sub(/^[^ ]+ +[^ ]+ +[^ ]+ +/, "", n)
  } else if ($2 ~ /^[A-Za-z]$/ && NF >= 3) {
    a = hex($1); s = 0; t = $2; n = $0; sub(/^[^ ]+ +[^ ]+ +/, "", n)
  } else next
  if (t ~ /^[tTwW]$/) { if (!(a in fnname)) fnname[a] = n }
  else if (t ~ /^[dDbBvVrR]$/ && s > 0) { nsym++; ya[nsym] = a; yz[nsym] = s; yn[nsym] = n }
  next
}
file == 5 {
  split($0, p, "\t"); a = p[1] + 0
  if (!(a in refs)) { nr++; ra[nr] = a; refs[a] = p[2]; nref[a] = 1 }
  else if (index("\n" refs[a] "\n", "\n" p[2] "\n") == 0) { refs[a] = refs[a] "\n" p[2]; nref[a]++ }
  next
}
file == 6 {
  if (!started) {
    started = 1
    drr = secstart(".data.rel.ro"); drrend = drr + secsize(".data.rel.ro")
    rostart = secstart(".rodata")
  }
  o = hex($1); t = hex($2); total++
  so_ = secof(o); st = secof(t)
  sample = ""
  if (so_ == ".data.rel.ro") {
    if (st == ".text") {
      kind = "fn"; sample = (t in fnname) ? fnname[t] : sprintf("0x%x", t)
    } else if (st == ".rodata") {
      wi = (o - drr) / 8 + 1
      len = (o + 8 < drrend && wi < nw) ? w[wi] : -1
      if (len >= 0 && len < 4096 && t + len <= rostart + length(rod) / 2) {
        s = rostr(t, len < 48 ? len : 48)
        if (rsuffix(t, len)) { kind = "loc"; sample = rostr(t, len) } else { kind = "str"; sample = "\"" s (len > 48 ? "..." : "") "\"" }
      } else {
        kind = "rodata"; sample = sprintf("->.rodata+0x%x", t - rostart)
      }
    } else {
      kind = "data"; sample = "->" st
    }
  } else if (so_ == ".got") {
    kind = "got"; sample = (st == ".text" && (t in fnname)) ? fnname[t] : "->" st
  } else {
    kind = "other"; sample = so_ "->" ((st == ".text" && (t in fnname)) ? fnname[t] : st)
  }
  # the object holding it: a symbol, else the nearest address code takes, at or below
  obj = ""
  for (i = 1; i <= nsym; i++) if (o >= ya[i] && o < ya[i] + yz[i]) { obj = yn[i]; key = "s" ya[i]; break }
  if (obj == "") {
    lo = 1; hi = nr; best = 0
    while (lo <= hi) { mid = int((lo + hi) / 2); if (ra[mid] <= o) { best = mid; lo = mid + 1 } else hi = mid - 1 }
    if (best && secof(ra[best]) == so_ && so_ != "?") {
      key = "r" ra[best]; n = refs[ra[best]]; split(n, fl, "\n")
      obj = fl[1] (nref[ra[best]] > 1 ? " (+" (nref[ra[best]] - 1) " more)" : "")
      firstfn = fl[1]
    } else { key = "u" so_; obj = "(no symbol, not taken by code: " so_ ")"; firstfn = "" }
  } else firstfn = obj
  # a GOT entry belongs to the function whose address it holds (code everywhere calls
  # through it), not to the code near it
  if (kind == "got") { obj = "the GOT: addresses of functions called through it"; key = "got" }
  if (kind == "loc") org = origin_of_file(sample)
  else if (kind == "got") org = (st == ".text" && (t in fnname)) ? origin_of(crate_of(fnname[t])) : "unknown"
  else org = (firstfn == "") ? "unknown" : origin_of(crate_of(firstfn))
  K[kind "\t" org]++
  bc[key]++; bo[key] = obj; bk[key, kind]++
  if (bs[key] == "" || bsn[key] < 3) { bs[key] = bs[key] (bsn[key] ? ", " : "") clean(sample); bsn[key]++ }
  next
}
END {
  print "T\t" total
  for (k in K) print "K\t" k "\t" K[k]
  for (key in bc) {
    best = ""; bn = 0
    split("str loc rodata fn got data other", ks, " ")
    for (i = 1; i <= 7; i++) if (bk[key, ks[i]] > bn) { bn = bk[key, ks[i]]; best = ks[i] }
    print "B\t" bc[key] "\t" best "\t" clean(bo[key]) "\t" bs[key]
  }
}
