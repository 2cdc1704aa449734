# Stage 85: migrate, audit verify (not with --probes-only) and backup --to on the stopped database.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "maintenance subcommands on the stopped database"
buildah run --isolation chroot "$server_ctr" -- permission-server migrate || fail "migrate"
echo "   migrate → 0"
if [ "$probes_only" -eq 0 ]; then
    buildah run --isolation chroot "$server_ctr" -- permission-server audit verify || fail "audit verify"
    echo "   audit verify → 0"
fi
buildah run --isolation chroot "$server_ctr" -- permission-server backup --to /data/backup.sqlite || fail "backup"
buildah run --isolation chroot "$server_ctr" -- test -s /data/backup.sqlite || fail "backup wrote nothing"
echo "   backup --to /data/backup.sqlite → 0 ($(buildah run --isolation chroot "$server_ctr" -- stat -c '%s bytes, owner %u' /data/backup.sqlite))"
done_step
