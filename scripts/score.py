#!/usr/bin/env python3
"""Score `mouchard scan` on a labelled corpus, per category and per SDK, with and without the device profile.

Usage:
    scripts/score.py [--corpus DIR] [--mouchard PATH] [--mode profile|pattern|both] [--misses] [--json OUT]
    scripts/score.py --mode profile|pattern --pair FINDINGS.json:LABELS.json [--pair ...]

The first form runs `MOUCHARD scan --format json [--device DIR/<dev>/device.json] DIR/<dev>/traffic.har` for each
device directory of the corpus (default Tests/Fixtures/sdk-corpus, binary .build/release/mouchard) and scores the
findings against each device's labels.json. The second form scores findings files already made, each against
the labels of the capture it was made from.

Unit of scoring: (capture, request, category), a request being `METHOD normalized-URL` (scheme and host lower
case, default port dropped, path and query byte-exact): SDK endpoints such as app-measurement.com/a are the same
URL on every device, so each capture's findings are scored against that capture's labels only. Several findings for one unit count once. A finding on a unit the
labels do not list is a false positive; a labelled unit no finding covers is a false negative. Only the categories
device-id, contacts, location, phone-number, email and name are scored; other categories are counted apart.
Pattern mode (no profile): the tool cannot tell the owner's phone, e-mail or name from a contact's, so on a
request labelled `contacts` a phone-number/email/name finding counts as that contacts unit, and a contacts finding
on a request labelled phone-number/email/name counts as that unit.

Prints a table per category and per SDK (the label's `app`), then per mode a last line
    score[MODE]: micro-F1=0.xxx precision=0.xxx recall=0.xxx
--misses lists every false negative and false positive with the label's leak entries (where, encoding).
--markdown prints the per-category and per-SDK tables of both modes side by side as Markdown (the corpus README).
--json writes the figures (per mode: overall, per category, per SDK, and the units of hard-negative-only
requests that got a finding) for tests and the README.
"""
import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict

SCORED = ("device-id", "contacts", "location", "phone-number", "email", "name")
PERSONAL = ("phone-number", "email", "name")
DEFAULT_PORTS = {"http": "80", "https": "443"}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def normalized(url):
    """Scheme and host lower case, default port and fragment dropped, path and query kept byte-exact."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep:
        raise ValueError(f"not an absolute URL: {url[:80]!r}")
    scheme = scheme.lower()
    cut = min([i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0] or [len(rest)])
    authority, tail = rest[:cut], rest[cut:].split("#", 1)[0]
    authority = authority.rsplit("@", 1)[-1]
    if authority.startswith("["):
        end = authority.find("]") + 1
        host, port = authority[:end], authority[end:].lstrip(":")
    else:
        host, _, port = authority.partition(":")
    host = host.lower()
    if port and port != DEFAULT_PORTS.get(scheme):
        host += ":" + port
    if not tail.startswith("/"):
        tail = "/" + tail
    return f"{scheme}://{host}{tail}"


class Tally:
    def __init__(self):
        self.tp = self.fp = self.fn = 0

    def add(self, other):
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    @property
    def precision(self):
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self):
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self):
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self):
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": round(self.precision, 4),
                "recall": round(self.recall, 4), "f1": round(self.f1, 4)}


def load_labels(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["requests"]


def load_findings(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return doc["findings"] if isinstance(doc, dict) else doc


def collect(findings, prefix, truth, mode, predicted):
    """Adds the scored units of one capture's findings to `predicted`; returns (unscored, unlabelled) counts."""
    unknown = other = 0
    for f in findings:
        category = f.get("category")
        req = f.get("request") or {}
        if category not in SCORED:
            other += 1
            continue
        try:
            key = prefix + f"{req['method']} {normalized(req['url'])}"
        except (KeyError, ValueError, AttributeError, TypeError):
            unknown += 1
            continue
        have = truth.get(key)
        if have is None:
            unknown += 1
            predicted.add((key, category))
            continue
        if mode == "pattern" and category not in have:
            if category in PERSONAL and "contacts" in have:
                category = "contacts"
            elif category == "contacts":
                category = next((c for c in PERSONAL if c in have), category)
        predicted.add((key, category))
    return other, unknown


def score(pairs, mode):
    """`pairs`: (findings, labels) of each capture. Returns (per-category Tally, per-SDK Tally, misses,
    hard-negative hits, unscored-category count, findings on unlabelled requests)."""
    truth, app, predicted = {}, {}, set()
    other = unknown = 0
    for index, (findings, labels) in enumerate(pairs):
        prefix = f"{index}|"
        for r in labels:
            key = prefix + f"{r['method']} {r['url']}"
            truth[key] = set(c for c in r["categories"] if c in SCORED)
            app[key] = r["app"]
        o, u = collect(findings, prefix, truth, mode, predicted)
        other += o
        unknown += u
    units = {(k, c) for k, cats in truth.items() for c in cats}
    per_cat = defaultdict(Tally)
    per_sdk = defaultdict(Tally)
    misses = []
    for unit in units | predicted:
        key, category = unit
        t = Tally()
        if unit in units and unit in predicted:
            t.tp = 1
        elif unit in units:
            t.fn = 1
            misses.append(("FN", key, category))
        else:
            t.fp = 1
            misses.append(("FP", key, category))
        per_cat[category].add(t)
        per_sdk[app.get(key, "(unlabelled request)")].add(t)
    negative_hits = sorted({(k, c) for k, c in predicted if k in truth and not truth[k]})
    return per_cat, per_sdk, sorted(misses, key=lambda m: (m[2], m[1], m[0])), negative_hits, other, unknown


def table(title, tallies):
    lines = [f"{title:<26} {'prec':>6} {'recall':>6} {'F1':>6} {'TP':>4} {'FP':>4} {'FN':>4}"]
    total = Tally()
    for name in sorted(tallies):
        t = tallies[name]
        total.add(t)
        lines.append(f"{name:<26} {t.precision:6.3f} {t.recall:6.3f} {t.f1:6.3f} {t.tp:4d} {t.fp:4d} {t.fn:4d}")
    lines.append(f"{'all (micro)':<26} {total.precision:6.3f} {total.recall:6.3f} {total.f1:6.3f} {total.tp:4d} {total.fp:4d} {total.fn:4d}")
    return "\n".join(lines), total


def markdown(report):
    """Per-category and per-SDK tables, one column group per mode."""
    modes = list(report)
    out = []
    for title, part in (("category", "categories"), ("SDK / API style", "sdks")):
        names = sorted({n for m in modes for n in report[m][part]})
        out.append("| " + title + " | " + " | ".join(f"{m} P | {m} R | {m} F1" for m in modes) + " |")
        out.append("|---|" + "---:|" * (3 * len(modes)))
        for n in names + ["**all (micro)**"]:
            cells = []
            for m in modes:
                t = report[m]["all"] if n.startswith("**") else report[m][part].get(n)
                cells += [f"{t['precision']:.3f}", f"{t['recall']:.3f}", f"{t['f1']:.3f}"] if t else ["", "", ""]
            out.append(f"| {n} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def devices(corpus):
    return sorted(name for name in os.listdir(corpus)
                  if os.path.isfile(os.path.join(corpus, name, "traffic.har")) and os.path.isfile(os.path.join(corpus, name, "labels.json")))


def scan(mouchard, har, profile):
    cmd = [mouchard, "scan", "--format", "json"] + (["--device", profile] if profile else []) + [har]
    run = subprocess.run(cmd, capture_output=True, cwd=ROOT)
    if run.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)} failed ({run.returncode}): {run.stderr.decode(errors='replace')[:400]}")
    return json.loads(run.stdout)["findings"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.path.join(ROOT, "Tests", "Fixtures", "sdk-corpus"))
    ap.add_argument("--mouchard", default=os.path.join(ROOT, ".build", "release", "mouchard"))
    ap.add_argument("--mode", choices=("profile", "pattern", "both"), default="both")
    ap.add_argument("--pair", action="append", help="FINDINGS.json:LABELS.json of one capture (scores made findings)")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    modes = ("profile", "pattern") if args.mode == "both" else (args.mode,)
    runs = {}
    if args.pair:
        if len(modes) != 1:
            sys.exit("--pair needs one --mode")
        runs[modes[0]] = [(load_findings(p.split(":", 1)[0]), load_labels(p.split(":", 1)[1])) for p in args.pair]
    else:
        names = devices(args.corpus)
        if not names:
            sys.exit(f"no device directories in {args.corpus}")
        for mode in modes:
            runs[mode] = []
            for n in names:
                profile = os.path.join(args.corpus, n, "device.json") if mode == "profile" else None
                runs[mode].append((scan(args.mouchard, os.path.join(args.corpus, n, "traffic.har"), profile),
                                   load_labels(os.path.join(args.corpus, n, "labels.json"))))
    report = {}
    for mode, pairs in runs.items():
        per_cat, per_sdk, misses, negative_hits, other, unknown = score(pairs, mode)
        labels = [r for _, ls in pairs for r in ls]
        found = [f for fs, _ in pairs for f in fs]
        print(f"== {mode} mode ({len(labels)} requests, {len(found)} findings, {other} of unscored categories, "
              f"{unknown} on unlabelled requests)")
        text, total = table("category", per_cat)
        print(text)
        print()
        print(table("SDK / API style", per_sdk)[0])
        print(f"hard-negative-only requests with a finding: {len(negative_hits)}")
        byreq = {f"{i}|{r['method']} {r['url']}": r for i, (_, ls) in enumerate(pairs) for r in ls}
        if args.misses:
            for kind, key, category in misses:
                r = byreq.get(key, {})
                how = "; ".join(f"{l['type']} @ {l['where']} [{l['encoding']}{', ' + l['form'] if 'form' in l else ''}]"
                                for l in r.get("leaks", []) if l["category"] == category)
                print(f"  {kind} {category:<12} {r.get('id', '?'):<16} {r.get('app', '?'):<22} {how or key.split('|', 1)[1][:120]}")
            for key, category in negative_hits:
                print(f"  NEG {category:<12} {byreq[key]['id']:<16} {byreq[key]['app']:<22} {key.split('|', 1)[1][:120]}")
        print(f"score[{mode}]: micro-F1={total.f1:.3f} precision={total.precision:.3f} recall={total.recall:.3f}")
        print()
        report[mode] = {"all": total.as_dict(), "categories": {k: t.as_dict() for k, t in sorted(per_cat.items())},
                        "sdks": {k: t.as_dict() for k, t in sorted(per_sdk.items())},
                        "hard_negative_hits": sorted(f"{byreq[k]['id']}|{c}" for k, c in negative_hits),
                        "unlabelled_findings": unknown}
    if args.markdown:
        print(markdown(report))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
