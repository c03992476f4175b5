variable "region" {
  type    = string
  default = "eu-central-1"
}

variable "account_id" {
  type    = string
  default = "123456789012"
}

variable "environment" {
  type = string
}

variable "session_capacity" {
  type = object({
    read  = number
    write = optional(number, 5)
  })
  default = { read = 10 }
}

variable "tags" {
  type    = map(string)
  default = {}
}
