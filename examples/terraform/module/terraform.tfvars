environment = "dev"
tags = {
  owner = "platform"
}
