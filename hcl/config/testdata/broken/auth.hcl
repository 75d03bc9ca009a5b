provider "a" {
  plugin     = "openai"
  base_url   = "https://api.example.com/v1"
  credential = env("EXAMPLE_KEY")

  auth {
    scheme = "header"
  }
}

provider "b" {
  plugin     = "openai"
  credential = env("EXAMPLE_KEY")

  auth {
    scheme = "bearer"
    name   = "Authorization"
  }
}

provider "c" {
  plugin     = "openai"
  credential = env("EXAMPLE_KEY")

  auth {
    scheme = "basic"
  }
}

chain "default" {
  providers = [provider.a, provider.b, provider.c, provider.d]
}

provider "d" {
  plugin = "openai"

  auth {
    name = "x-key"
  }
}
