"""What to do next after an error: the hint every error dialog and failure status of the studio ends with.

The core's errors are one line saying what failed (``clinic.csv, line 12: 3 fields, but the header has 4``);
the CLI prints them as they are, and tests of the core check their words. The studio adds the next step here,
from the kind of error the line names, rather than in each message: :func:`next_step` picks the first rule
whose pattern the message matches (the default depends on whether a load or a run failed) and
:func:`with_next_step` appends it.
"""
from __future__ import annotations

import re

__all__ = ["RULES", "next_step", "with_next_step", "NEXT"]

#: How the hint starts in a dialog.
NEXT = "What to do:"

_I = re.IGNORECASE

#: (pattern of the error message, what to do next); the first match wins, so the narrow ones come first.
RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # A labels or other per-record file made for another dataset.
    (re.compile(r"of the dataset ha(s|ve) no label|already has a label|is not a record number|record .* is not "
                r"(between 1 and|in the dataset)", _I),
     "choose the labels file of this dataset (one line per record, numbered from 1 to the dataset's records), or "
     "open the dataset the file was made for."),
    (re.compile(r"needs a (labels|sensitive)[- ]", _I),
     "choose that file in the parameters on the right, or turn the diversity requirement (ℓ) off."),
    # A release or labels that do not line up with the open dataset.
    (re.compile(r"has [\d,]+ (rows|records)\b.*\bbut the (release|table|original|data)\b|\bbut the "
                r"(release|table|original|data) has [\d,]+", _I),
     "choose the release made from this dataset, or open the original it was made from (File › Open dataset…)."),
    (re.compile(r"no column (named )?['\"“]", _I),
     "pick one of the table's columns in the parameters on the right (the message lists them), or check the "
     "column roles in the datasets dock."),
    (re.compile(r"fewer than k\b|k = [\d,]+ .*(more|larger|greater) than|\bk\b.* at most the", _I),
     "lower k in the parameters on the right, or load a dataset with more records."),
    (re.compile(r"fewer than (l|ℓ)\b|(l|ℓ) = [\d,]+ is more than", _I),
     "lower ℓ on the right, or choose a sensitive column with more different values."),
    (re.compile(r"cannot be met|infeasible|nothing is published", _I),
     "relax the settings on the right (a smaller k or m, a looser bound) and run again."),
    (re.compile(r"password|authenticat|could not connect|connection refused|unable to open database|"
                r"operationalerror", _I),
     "check the database address, user and password in File › Open database…, and that the server is reachable."),
    (re.compile(r"no space left|read-only file system|could not write|cannot write|permission denied", _I),
     "choose another folder you can write to, and check that the disk has free space."),
    (re.compile(r"no such file|not there any more|does not exist|is missing", _I),
     "the file was moved or deleted: choose it again where it is now."),
    (re.compile(r"memoryerror|out of memory|not enough memory", _I),
     "close other datasets or windows, or work on a smaller part of the data, and try again."),
    (re.compile(r"\bline [\d,]+\b|cannot be (read|parsed) as|not an integer item|fields, but|encoding", _I),
     "fix that line of the file, or change how it is read (format, separator, header, encoding) in the import "
     "preview of File › Open dataset…, then load it again."),
    (re.compile(r"could not show the result", _I),
     "run it again; if it happens again, View › Jobs and log has the details to report."),
)

#: When no rule matches: a load, a project or anything else (a run).
DEFAULT_LOAD = ("check the file in the import preview (File › Open dataset…), or choose another file or sample; "
                "View › Jobs and log has the details.")
DEFAULT_PROJECT = "check that the project file and its dataset are where the project says, or open another project."
DEFAULT_RUN = "change the settings on the right and run again; View › Jobs and log has the details."


def next_step(message: str, title: str = "") -> str:
    """The next step for an error ``message`` (of the job or action called ``title``), in one sentence."""
    for pattern, step in RULES:
        if pattern.search(message):
            return step
    lowered = title.lower()
    if "project" in lowered:
        return DEFAULT_PROJECT
    if lowered.startswith(("load", "open")):
        return DEFAULT_LOAD
    return DEFAULT_RUN


def with_next_step(message: str, title: str = "") -> str:
    """``message`` followed by its next step on the same line (unchanged when it already says one).

    The same line: a bad input's message stays one line naming the file and the reason, now with what to do.
    """
    if NEXT in message:
        return message
    step = next_step(message, title)
    text = message.rstrip()
    end = "" if text.endswith((".", "!", "?", "…")) else "."
    return f"{text}{end} {NEXT} {step[:1].upper()}{step[1:]}"
