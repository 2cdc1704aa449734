# shellcheck shell=bash
# Shared by the fuzz scripts (sourced, not run): the compiler flags, and the ByteText module that
# the fuzzed sources import, built once with the same instrumentation into a temporary folder.

# shellcheck disable=SC2054 # the comma belongs to the one -sanitize argument
swift_fuzz_flags=(-sanitize=fuzzer,address -parse-as-library -O -wmo -swift-version 6
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -package-name permission_service)

# Builds Sources/ByteText (no dependencies) as a module and an object in DIR; prints the
# compiler arguments that use them (`-I DIR DIR/ByteText.o`).
build_bytetext() { # dir
    local dir="$1"
    swiftc "${swift_fuzz_flags[@]}" -module-name ByteText -emit-module -emit-module-path "$dir/ByteText.swiftmodule" \
        -c Sources/ByteText/*.swift -o "$dir/ByteText.o"
    echo "-I $dir $dir/ByteText.o"
}
