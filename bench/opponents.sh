#!/usr/bin/env bash
# Builds the checkers opponents, Cake (Cake++ 1.22) and simplech (Simple Checkers 1.14), from
# the public capers sources with their own makefiles, as CheckerBoard engine libraries that
# `cbhost` plays:
#
#   bash bench/opponents.sh CAPERS_DIR
#
# CAPERS_DIR is a checkout of the capers repository (it holds cake/ and cliche/). Cake reads
# its opening book from cake/ (xbook.bin), so tournaments run its host there (`dir=`); its
# 4-piece database (db.ini, db4) is probed only by 32-bit builds (its switches.h defines
# USEDB only where __LP64__ is not), so on 64-bit machines Cake searches without it. Afterwards `TMBOT_CAPERS=CAPERS_DIR cargo test -p tmbot-cb`
# also plays them, and tournaments/checkers-opponents.toml names them.
set -euo pipefail
dir=${1:?usage: bash bench/opponents.sh CAPERS_DIR}
dir=$(cd "$dir" && pwd)
[[ -f $dir/cake/Makefile && -f $dir/cliche/Makefile ]] ||
  { echo "opponents.sh: $dir has no cake/Makefile and cliche/Makefile" >&2; exit 1; }
# Newer compilers refuse the tentative definitions these sources share (-fcommon keeps the old
# behaviour); the database folder is compiled in, so it is the checkout's own.
make -C "$dir/cake" CC="gcc -fcommon" DB___DIR="$dir/cake" cake.so
make -C "$dir/cliche" simplech.so
ls -l "$dir/cake/cake.so" "$dir/cliche/simplech.so"
echo "built; use TMBOT_CAPERS=$dir"
