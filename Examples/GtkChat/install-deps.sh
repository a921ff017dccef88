#!/bin/sh
# Installs what the GTK example needs (GTK 4 headers, Xvfb and xauth for the self-test, an emoji font for its
# screenshot), only when missing.
# Debian/Ubuntu; run as root or with sudo available. Safe to call on every CI run.
set -eu

missing=""
pkg-config --exists gtk4 2>/dev/null || missing="$missing libgtk-4-dev"
{ command -v Xvfb && command -v xvfb-run; } >/dev/null 2>&1 || missing="$missing xvfb"
# xvfb-run needs xauth for its cookie.
command -v xauth >/dev/null 2>&1 || missing="$missing xauth"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
# Only for the screenshot: without a colour emoji font the 👍/👎 buttons show empty boxes.
fc-list 2>/dev/null | grep -qi emoji || missing="$missing fonts-noto-color-emoji"

if [ -z "$missing" ]; then
  echo "install-deps: GTK 4 and Xvfb already present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086 # word splitting of the package list is intended
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
