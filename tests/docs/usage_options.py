"""Every option and every choice word each `nnscan COMMAND -h` prints
appears in the README's Usage block and in docs/cli.md (issue 41 item
10): the help is read from the binary, so a new option fails this test
until both documents name it. Usage: usage_options.py PATH/TO/nnscan"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-o)(?![\w-])")
# an option's choices as its help line writes them: --format text|csv|md
CHOICES = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]* ([a-z0-9]+(?:\|[a-z0-9]+)+)")


def commands(nnscan):
    """The commands `nnscan -h` lists in its overview."""
    out = subprocess.run([nnscan, "-h"], capture_output=True, text=True,
                         check=True).stdout
    block = out.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  ([a-z]+) ", block, re.M)


def words(help_text):
    """The options and choice words of one command's help."""
    found = set()
    for line in help_text.splitlines():
        if line.startswith("usage:"):
            # the usage line's own options (ops, hardware have no list)
            line = line.split("   (", 1)[0]
        found.update(OPTION.findall(line))
        for choices in CHOICES.findall(line):
            found.update(choices.split("|"))
    return found


def usage_block(readme):
    text = readme.split("\n## Usage\n", 1)[1]
    return text.split("```", 2)[1]


def main():
    nnscan = sys.argv[1]
    readme = usage_block((ROOT / "README.md").read_text())
    cli_md = (ROOT / "docs" / "cli.md").read_text()
    cmds = commands(nnscan)
    missing = []
    for cmd in cmds:
        out = subprocess.run([nnscan, cmd, "-h"], capture_output=True,
                             text=True, check=True).stdout
        if not re.search(r"^nnscan %s\b" % cmd, readme, re.M):
            missing.append(f"README Usage: no 'nnscan {cmd}' line")
        for w in sorted(words(out)):
            pat = re.compile(r"(?<![\w-])%s(?![\w-])" % re.escape(w))
            for doc, text in (("README Usage", readme),
                              ("docs/cli.md", cli_md)):
                if not pat.search(text):
                    missing.append(f"{doc}: nnscan {cmd} -h prints '{w}'")
    if len(cmds) < 5:
        missing.append(f"nnscan -h lists only {cmds}")
    for m in missing:
        print("MISSING", m)
    print(f"{len(cmds)} commands checked, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
