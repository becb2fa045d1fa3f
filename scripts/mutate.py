#!/usr/bin/env python3
"""Mutation check: applies each one-line bug of tests/mutants/mutants.txt to a copy of the tree,
builds it, runs the test suite, and reports which mutants the suite kills and which survive.

Not part of CI (a build and a suite run per mutant). Run it before calling a change to kernels,
epilogues, packing or the front end done:

  python3 scripts/mutate.py                 # every mutant this machine can run
  python3 scripts/mutate.py rowpair-        # mutants whose id starts with rowpair-
  python3 scripts/mutate.py --list          # the list, with where each runs
  python3 scripts/mutate.py --commit HEAD   # a commit's tree instead of the working tree
  python3 scripts/mutate.py --reduced       # native suites with CPUML_TEST_SWEEP=reduced (about half
                                            # the time); run a survivor again without it, by its id
  python3 scripts/mutate.py --export DIR s8u4-amx
                                            # builds each native mutant's suite (and the unmutated
                                            # one) into DIR, whatever this CPU has, for a machine
                                            # that has the tier: there `bash DIR/run.sh` runs them

A mutant runs where its code runs: 'native' on this CPU (every x86 tier the CPU has, each capped
in turn by the suite), 'aarch64:<cpu>' under qemu-aarch64 (the cross build of scripts/test.sh,
whose sysroot must exist: run scripts/test.sh once first). A mutant whose tiers this CPU lacks is
reported as not run, never as killed. Exit status: 1 if any mutant that ran survived.
"""
import contextlib
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "tests", "mutants", "mutants.txt")
WORK = os.path.join(ROOT, "build", "mutants")
REDUCED = "--reduced" in sys.argv

# What DIR/run.sh does on the machine with the tier: the unmutated suite must pass; each mutant's
# suite stops at its first failure (killed) or passes (survived). Extra arguments go to every
# suite (a --gtest_filter, say).
EXPORT_RUNNER = """#!/usr/bin/env bash
# Written by scripts/mutate.py --export: runs the mutants' suites built here, on a CPU with their tier.
cd "$(dirname "$0")"
export CPUML_TEST_SWEEP=reduced
if ! ./unmutated.cpuml_tests --gtest_brief=1 "$@" > unmutated.log 2>&1; then
  echo "the unmutated suite fails here, see unmutated.log"; exit 2
fi
survived=0
for binary in *.cpuml_tests; do
  id=${binary%.cpuml_tests}
  [ "$id" = unmutated ] && continue
  if ./"$binary" --gtest_brief=1 --gtest_fail_fast "$@" > "$id.log" 2>&1; then
    echo "$id: SURVIVED"; survived=1
  else
    echo "$id: killed ($(grep -m1 -oE '^\[  FAILED  \] [^ ,]+' "$id.log" | cut -c14- || echo "exit status"))"
  fi
done
exit $survived
"""


def parse(path):
    """Blocks of: '=== id', 'file: path', 'needs: tier', 'runs: where', 'why: text', '- old', '+ new'."""
    mutants, current = [], None
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("=== "):
            current = {"id": line[4:].strip(), "runs": "native", "needs": "scalar", "old": [], "new": []}
            mutants.append(current)
        elif line.startswith("- "):
            current["old"].append(line[2:])
        elif line.startswith("+ "):
            current["new"].append(line[2:])
        else:
            key, _, value = line.partition(": ")
            current[key.strip()] = value.strip()
    for m in mutants:
        m["old"], m["new"] = "\n".join(m["old"]), "\n".join(m["new"])
        for key in ("file", "why", "old", "new"):
            if not m.get(key):
                sys.exit(f"mutate: {m['id']} has no {key}")
    return mutants


def native_tiers():
    """Tiers the suite runs on this CPU: what cpuml_tests reports as not skipped."""
    cpuinfo = open("/proc/cpuinfo").read()
    flags = set(re.search(r"^flags\s*:(.*)$", cpuinfo, re.M).group(1).split()) if "flags" in cpuinfo else set()
    tiers = {"scalar"}
    if "sse4_1" in flags:
        tiers.add("sse41")
    if {"avx2", "fma"} <= flags:
        tiers.add("avx2")
    if "avx_vnni" in flags and "avx2" in tiers:
        tiers.add("avxvnni")
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni"} <= flags:
        tiers.add("avx512vnni")
        if {"amx_tile", "amx_int8", "gfni"} <= flags:
            tiers.add("amx")
    return tiers


def run(cmd, log, env=None, timeout=3600):
    with open(log, "w") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, timeout=timeout, cwd=WORK).returncode


def sync_tree(commit):
    """The copy: the working tree's tracked and untracked (not ignored) files, or a commit's tree.
    Files that did not change keep their times, so the copy's build stays incremental."""
    os.makedirs(WORK, exist_ok=True)
    if commit:
        files = subprocess.run(["git", "ls-tree", "-r", "--name-only", commit], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.split("\n")
    else:
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.split("\n")
    for f in filter(None, files):
        dst = os.path.join(WORK, "tree", f)
        if commit:
            data = subprocess.run(["git", "show", f"{commit}:{f}"], cwd=ROOT, capture_output=True, check=True).stdout
        else:
            src = os.path.join(ROOT, f)
            if not os.path.isfile(src):
                continue
            data = open(src, "rb").read()
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst) or open(dst, "rb").read() != data:
            with open(dst, "wb") as out:
                out.write(data)


def configure(where):
    tree, build = os.path.join(WORK, "tree"), os.path.join(WORK, "build-" + where.replace(":", "-"))
    args = ["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DCPUML_BENCH_PEERS=OFF",
            "-DCPUML_BUILD_BENCHMARKS=OFF", "-DCPUML_INSTALL=OFF"]
    if where.startswith("aarch64"):
        sysroot = os.path.join(ROOT, "build", "aarch64-sysroot")
        if not os.path.isfile(os.path.join(sysroot, "usr", "include", "cpuinfo.h")):
            return None
        args += ["-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(tree, "cmake", "toolchain-aarch64-linux-gnu.cmake"),
                 "-DCPUML_ARM64_SYSROOT=" + sysroot]
    if run(args, os.path.join(WORK, "configure.log")) != 0:
        sys.exit("mutate: configure failed, see build/mutants/configure.log")
    return build


def suite(where, build, log):
    binary = os.path.join(build, "tests", "cpuml_tests")
    env = dict(os.environ)
    if where == "native":
        if REDUCED:
            env["CPUML_TEST_SWEEP"] = "reduced"
        return run([binary, "--gtest_brief=1"], log, env)
    cpu = where.split(":", 1)[1]
    sysroot = os.path.join(ROOT, "build", "aarch64-sysroot")
    env.update(CPUML_TEST_SWEEP="reduced", CPUML_TEST_EMULATED="1", CPUML_TEST_MAX_THREADS="1", QEMU_LD_PREFIX="/usr/aarch64-linux-gnu",
               LD_LIBRARY_PATH=os.path.join(sysroot, "usr", "lib", "aarch64-linux-gnu"))
    return run(["qemu-aarch64", "-cpu", cpu, binary, "--gtest_brief=1"], log, env)


def runnable(m, tiers):
    if m["runs"] != "native":
        return shutil.which("qemu-aarch64") is not None and os.uname().machine == "x86_64"
    return m["needs"] in tiers


@contextlib.contextmanager
def applied(m):
    """Mutant m's bug in the work tree for the with-block, the file restored after it. Yields how
    often the line to replace occurs in the file: the bug is applied only when that is once."""
    path = os.path.join(WORK, "tree", m["file"])
    original = open(path, encoding="utf-8").read()
    count = original.count(m["old"])
    if count != 1:
        yield count
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original.replace(m["old"], m["new"]))
        yield count
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original)


def export(chosen, directory, jobs):
    """Each chosen native mutant's cpuml_tests, and the unmutated one, copied into directory with
    a runner, for a machine that has tiers this one lacks (the Emerald Rapids device's amx)."""
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    build = configure("native")

    def build_into(name):
        log = os.path.join(WORK, name + ".log")
        if run(["cmake", "--build", build, "-j", jobs, "--target", "cpuml_tests"], log) != 0:
            return False
        shutil.copy(os.path.join(build, "tests", "cpuml_tests"), os.path.join(directory, name + ".cpuml_tests"))
        return True

    if not build_into("unmutated"):
        sys.exit("mutate: the unmutated tree does not build, see build/mutants/unmutated.log")
    for m in chosen:
        if m["runs"] != "native":
            continue
        with applied(m) as count:
            if count != 1:
                print(f"{m['id']}: STALE (the line to mutate occurs {count} times)")
                continue
            print(f"{m['id']}: {'built' if build_into(m['id']) else 'killed (does not build)'}", flush=True)
    with open(os.path.join(directory, "run.sh"), "w") as f:
        f.write(EXPORT_RUNNER)
    print(f"mutate: suites in {directory}; on the machine with the tier: bash {directory}/run.sh")
    return 0


def main():
    args = [a for a in sys.argv[1:] if a != "--reduced"]
    export_dir = None
    if "--export" in args:
        at = args.index("--export")
        export_dir = args[at + 1]
        del args[at:at + 2]
    commit = None
    if "--commit" in args:
        at = args.index("--commit")
        commit = args[at + 1]
        del args[at:at + 2]
    mutants = parse(LIST)
    tiers = native_tiers()
    if "--list" in args:
        for m in mutants:
            where = m["runs"] if m["runs"] != "native" else "native, needs " + m["needs"]
            print(f"{m['id']:40s} {where:32s} {m['why']}")
        return 0
    chosen = [m for m in mutants if not args or any(m["id"].startswith(a) for a in args)]
    jobs = str(os.cpu_count() or 2)
    sync_tree(commit)
    if export_dir:
        return export(chosen, export_dir, jobs)
    results, builds = [], {}
    # The unmutated copy first: a mutant counts as killed only where the tree itself passes.
    for where in sorted({m["runs"] for m in chosen if runnable(m, tiers)}):
        builds[where] = configure(where)
        if builds[where] is None:
            continue
        log = os.path.join(WORK, "unmutated-" + where.replace(":", "-") + ".log")
        if run(["cmake", "--build", builds[where], "-j", jobs, "--target", "cpuml_tests"], log) != 0 or \
                suite(where, builds[where], log) != 0:
            sys.exit(f"mutate: the unmutated tree fails ({where}), see {log}")
        print(f"unmutated tree ({where}): passes", flush=True)
    for m in chosen:
        if not runnable(m, tiers):
            results.append((m, "not run", f"tier {m['needs']} absent" if m["runs"] == "native" else "no qemu"))
            continue
        start = time.time()
        with applied(m) as count:
            if count != 1:
                results.append((m, "STALE", f"the line to mutate occurs {count} times in {m['file']}"))
                continue
            where = m["runs"]
            if where not in builds:
                builds[where] = configure(where)
            build = builds[where]
            if build is None:
                results.append((m, "not run", "no aarch64 sysroot (run scripts/test.sh once)"))
                continue
            log = os.path.join(WORK, m["id"] + ".log")
            if run(["cmake", "--build", build, "-j", jobs, "--target", "cpuml_tests"], log) != 0:
                results.append((m, "killed", "does not build"))
                continue
            status = suite(where, build, log)
            text = open(log, errors="replace").read()
            failed = re.findall(r"^\[  FAILED  \] (\S+)", text, re.M)
            if status != 0:
                names = sorted({f.split("/")[0] + "/" + f.split("/")[1] if "/" in f else f for f in failed})
                results.append((m, "killed", (", ".join(names[:3]) or f"exit status {status}") +
                                (f" (+{len(names) - 3})" if len(names) > 3 else "")))
            else:
                results.append((m, "SURVIVED", "every test passed"))
        print(f"{m['id']}: {results[-1][1]} ({time.time() - start:.0f} s)", flush=True)
    print()
    print(f"{'mutant':40s} {'result':9s} detail")
    for m, result, detail in results:
        print(f"{m['id']:40s} {result:9s} {detail}")
    ran = [r for r in results if r[1] in ("killed", "SURVIVED")]
    survived = [r for r in ran if r[1] == "SURVIVED"]
    stale = [r for r in results if r[1] == "STALE"]
    print(f"\nmutate: {len(ran) - len(survived)} of {len(ran)} killed, {len(survived)} survived, "
          f"{len(results) - len(ran) - len(stale)} not run on this machine, {len(stale)} stale")
    return 1 if survived or stale else 0


if __name__ == "__main__":
    sys.exit(main())
