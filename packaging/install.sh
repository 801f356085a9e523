#!/bin/sh
# Install the anonstudio desktop app for the current user (no root needed).
#
#   ./install.sh               copy this folder to ~/.local/share/anonstudio, add the menu
#                              entry and icon, and link anonstudio and anonstudio-cli
#                              into ~/.local/bin
#   ./install.sh --uninstall   remove all of that again
#
# Run it from the built bundle folder (it sits beside the anonstudio executable).
# XDG_DATA_HOME and ANONSTUDIO_PREFIX (the app folder) are honoured.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd -P)
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
PREFIX=${ANONSTUDIO_PREFIX:-$DATA/anonstudio}
BIN=$HOME/.local/bin
APPS=$DATA/applications
ICONS=$DATA/icons/hicolor
COMMANDS="anonstudio anonstudio-cli"

refresh_caches() {
    # Menus and icon themes pick the change up at once where these tools exist.
    if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database -q "$APPS" || true; fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1; then gtk-update-icon-cache -q -t "$ICONS" || true; fi
}

is_app_folder() {
    [ -x "$1/anonstudio" ] && [ -x "$1/anonstudio-cli" ] && [ -d "$1/_internal" ]
}

unlink_commands() {
    for cmd in $COMMANDS; do
        # Only our own links: a pip-installed launcher of the same name stays.
        if [ -L "$BIN/$cmd" ] && [ "$(readlink "$BIN/$cmd")" = "$PREFIX/$cmd" ]; then rm -f "$BIN/$cmd"; fi
    done
}

if [ "${1:-}" = "--uninstall" ]; then
    unlink_commands
    rm -f "$APPS/anonstudio.desktop" "$ICONS/scalable/apps/anonstudio.svg" \
          "$ICONS/256x256/apps/anonstudio.png" "$ICONS/48x48/apps/anonstudio.png"
    if is_app_folder "$PREFIX"; then rm -rf "$PREFIX"; fi
    refresh_caches
    echo "anonstudio removed (settings and caches stay in your user folders)."
    exit 0
elif [ $# -gt 0 ]; then
    echo "usage: $0 [--uninstall]" >&2
    exit 2
fi

if ! is_app_folder "$HERE"; then
    echo "install.sh: run me from the built anonstudio folder (beside the anonstudio executable)" >&2
    exit 2
fi

if [ "$HERE" != "$PREFIX" ]; then
    if [ -e "$PREFIX" ] && ! is_app_folder "$PREFIX"; then
        echo "install.sh: $PREFIX exists and is not an anonstudio folder; not replacing it" >&2
        exit 2
    fi
    # Copy beside the old version first, so a failed copy leaves it working.
    mkdir -p "$(dirname "$PREFIX")"
    rm -rf "$PREFIX.new"
    cp -R "$HERE" "$PREFIX.new"
    rm -rf "$PREFIX"
    mv "$PREFIX.new" "$PREFIX"
fi

mkdir -p "$APPS" "$ICONS/scalable/apps" "$ICONS/256x256/apps" "$ICONS/48x48/apps" "$BIN"
cp "$PREFIX/icons/anonstudio.svg" "$ICONS/scalable/apps/anonstudio.svg"
cp "$PREFIX/icons/anonstudio-256.png" "$ICONS/256x256/apps/anonstudio.png"
cp "$PREFIX/icons/anonstudio-48.png" "$ICONS/48x48/apps/anonstudio.png"
# The menu does not search ~/.local/bin, so the entry names the executable by its full path.
sed -e "s|^Exec=.*|Exec=\"$PREFIX/anonstudio\" %f|" -e "s|^TryExec=.*|TryExec=$PREFIX/anonstudio|" \
    "$PREFIX/anonstudio.desktop" > "$APPS/anonstudio.desktop"

for cmd in $COMMANDS; do
    if [ -e "$BIN/$cmd" ] && [ ! -L "$BIN/$cmd" ]; then
        echo "install.sh: $BIN/$cmd exists (another anonstudio install?); left as it is" >&2
    else
        ln -sfn "$PREFIX/$cmd" "$BIN/$cmd"
    fi
done
refresh_caches

echo "anonstudio installed in $PREFIX"
echo "  menu entry: $APPS/anonstudio.desktop"
echo "  commands:   $BIN/anonstudio, $BIN/anonstudio-cli"
case ":$PATH:" in
    *":$BIN:"*) ;;
    *) echo "  (add $BIN to your PATH to run the commands from a terminal)" ;;
esac
