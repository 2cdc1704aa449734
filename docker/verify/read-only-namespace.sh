#!/usr/bin/env bash
# Runs in a new mount and PID namespace: builds the container's root, then execs "$@" in it.
set -eu
image_root="$1" root="$2" data="$3"
shift 3
mount --bind "$image_root" "$root"
mount -o remount,bind,ro "$root"
mount --bind "$data" "$root/data"
while [ "$1" != "--" ]; do
    path="${1%%:*}" size="${1#*:}"
    mount -t tmpfs -o "mode=1777,nosuid,nodev${size:+,size=$size}" tmpfs "$root$path"
    shift
done
shift
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
mount -t tmpfs -o mode=0755,size=64k,nosuid tmpfs "$root/dev"
for node in null zero full random urandom tty; do
    touch "$root/dev/$node"
    mount --bind "/dev/$node" "$root/dev/$node"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir "$root/dev/shm"
mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev,noexec shm "$root/dev/shm"
exec "$@"
