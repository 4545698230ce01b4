# Sourced by the scripts that build Debian roots with debootstrap.
# debian_mirror prints the Debian mirror to use: $1 when given and non-empty, else the mirror apt uses, else
# deb.debian.org.
debian_mirror() {
  if [[ -n "${1:-}" ]]; then
    echo "$1"
    return
  fi
  local uri
  uri=$(grep -h -E '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
    | grep -v security | grep -o -E 'https?://[^ ]+/debian/?' | head -n 1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}
