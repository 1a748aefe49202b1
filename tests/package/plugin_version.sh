# Sourced by the package checks: the plugin_version a Slurm plugin exports
# (the number Slurm compares with its own at load), read from the ELF as a
# little-endian uint32 at its symbol's address.  Prints it in decimal, or
# nothing when the file exports none.
plugin_version() { # FILE
  local addr bytes got
  addr=$(nm -D --defined-only "$1" 2>/dev/null | awk '$3 == "plugin_version" {print $1}')
  [ -n "$addr" ] || return 0
  bytes=$(objdump -s --start-address="0x$addr" --stop-address=$((0x$addr + 4)) "$1" | tail -1 | awk '{print $2}')
  got=$(printf '0x%s%s%s%s' "${bytes:6:2}" "${bytes:4:2}" "${bytes:2:2}" "${bytes:0:2}")
  [[ $got =~ ^0x[0-9a-f]{8}$ ]] || got=0
  echo $((got))
}
