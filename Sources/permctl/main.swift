// The `permctl` executable: see Permctl and ../../docs/permctl.section.md.
Permctl.main()
