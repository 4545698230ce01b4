#!/usr/bin/env bash
# The release check: every published artifact deployed, signed with a throwaway key, to a file repository
# (target/release-repository), each signature verified, and the repository checked against Maven Central's
# requirements (architecture/.../release/CentralRequirements: metadata, sources and javadoc jars, signatures,
# checksums, LICENSE and NOTICE in every jar). Run after ./mvnw verify, it reuses what that compiled: about a minute.
# A real release signs with the releaser's key instead: ./mvnw -Drelease -DskipTests deploy -Dgpg.keyname=KEY.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[release-check] %s\n' "$*"; }
repo="$PWD/target/release-repository"
rm -rf "$repo"

GNUPGHOME="$(mktemp -d /tmp/harbinger-gpg.XXXXXX)"
export GNUPGHOME
trap 'gpgconf --kill gpg-agent >/dev/null 2>&1 || true; rm -rf "$GNUPGHOME"' EXIT
gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
  --quick-gen-key 'Harbinger release check <release-check@localhost>' ed25519 sign 1d
log "throwaway signing key: $(gpg --batch --list-keys --with-colons | awk -F: '/^fpr/ {print $10; exit}')"

log "deploying the published artifacts to $repo"
./mvnw -B -q -Drelease -DskipTests -Dspotless.check.skip=true -Dmaven.install.skip=true deploy \
  -Drelease.repository="file://$repo"

count=0
while IFS= read -r sig; do
  if ! gpg --batch --quiet --verify "$sig" "${sig%.asc}" 2>/dev/null; then
    log "the signature $sig does not verify"
    exit 1
  fi
  count=$((count + 1))
done < <(find "$repo" -name '*.asc')
log "$count signatures verify"

"$JAVA_HOME/bin/java" -cp architecture/target/test-classes io.harbinger.architecture.release.CentralRequirements \
  "$repo" --allow-snapshot
