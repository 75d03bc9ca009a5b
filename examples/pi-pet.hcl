# A Raspberry Pi pet: a subscription model when the network is up, a small
# local model when it is not, and a face on a Waveshare 2.13" e-Paper HAT.
# hardware/pi/install.sh copies this file to /etc/axon/axon.hcl.
#
#   sudo -u axon axon check --config /etc/axon/axon.hcl
#     (as the service's user: /etc/axon is 0750 root:axon, not readable by
#     the login user)
#   systemctl restart axon && journalctl -u axon -f

axon {
  listen     = "127.0.0.1:7070"
  state_dir  = "/var/lib/axon"          # the unit's StateDirectory
  plugin_dir = "/usr/local/lib/axon"    # where install.sh puts the plugins
  idle_stop  = "5m"                     # stop providers and tools unused for 5 min (the display: its own below)
}

# Z.ai's GLM through its Anthropic-compatible endpoint. The preset fills
# plugin, base_url, auth and credential = env("ZAI_API_KEY"), which the unit
# reads from /etc/axon/secrets.env.
provider "glm" {
  preset         = "glm"
  model          = "glm-4.6"
  tier           = "sub"
  context_window = 128000
}

# Local fallback on the Pi itself (or on a LAN box: set base_url to its IP,
# e.g. "http://192.168.1.20:11434"; a LAN hostname is refused). A Zero 2W
# runs a 0.5B model, slowly; it is enough to stay awake offline.
provider "local" {
  preset = "ollama"
  model  = "qwen2.5:0.5b"

  timeouts {
    first_token = "2m"                  # a cold model on a small board takes a while
  }
}

chain "default" {
  providers = [provider.glm, provider.local]

  retry {
    attempts        = 2
    backoff         = "500ms"
    max_retry_after = "20s"
  }
}

# The face. Every attribute below is the plugin's default for the HAT; they
# are spelled out so the wiring is visible in one place.
display "face" {
  plugin = "epd"                        # runs axon-display-epd

  panel    = "v4"                       # "v3" for the older HAT (same SSD1680)
  spi_port = "SPI0.0"                   # /dev/spidev0.0, CE0
  dc_pin   = "GPIO25"
  rst_pin  = "GPIO17"
  busy_pin = "GPIO24"
  cs_pin   = ""                         # "" = spidev drives CE0 (GPIO8)
  power_pin = ""                        # "GPIO18" on e-Paper Driver HAT rev 2.3

  rotate                = 0             # 180 if the face is upside down
  full_refresh_every    = 20            # the rest are partial (no flash)
  full_refresh_interval = "1h"
  busy_timeout          = "10s"

  # Stop the plugin too after 5 minutes without a new face: E-Ink keeps the
  # face without power, and the idle Pi then runs axon alone. The next face
  # starts a new process, which finds the frame on the glass in state_file
  # and refreshes partially (no flash). The unit makes /var/lib/axon/epd.
  idle_stop  = "5m"
  state_file = "/var/lib/axon/epd/glass.json"

  # The plugin runs in its sandbox like every other: it sees only what is
  # granted here. The SPI port, the GPIO chip and the device tree periph
  # reads to recognise the board (README "Security model").
  grant {
    devices    = ["/dev/spidev0.0", "/dev/gpiochip0", "/dev/gpiomem"]
    read_only  = ["/sys/firmware/devicetree/base", "/sys/class/gpio", "/sys/bus/spi"]
    read_write = ["/var/lib/axon/epd"]  # state_file's directory
  }
}
