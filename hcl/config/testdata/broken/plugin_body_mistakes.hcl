provider "local" {
  preset = "ollama"

  pricng {
    input_per_mtok = 0
  }
}

tool "dice" {
  preset = "ollama"
}

display "term" {
  credential = env("TERM_KEY")
}

chain "default" {
  providers = [provider.local, provider.flat]
}

provider "flat" {
  preset = "ollama"
  egress = { allow = ["x.example"] }
}

display "epd" {
  egress {
    allow = ["x.example"]
  }
}
