variable "create" {
  description = "Whether to create the table"
  type        = bool
  default     = true
}

variable "name" {
  description = "Name of the table"
  type        = string
}

variable "attributes" {
  description = "Key attributes of the table and its indexes"
  type = list(object({
    name = string
    type = string
  }))
  default = []
}

variable "hash_key" {
  type = string
}

variable "range_key" {
  type    = string
  default = null
}

variable "billing_mode" {
  type    = string
  default = "PAY_PER_REQUEST"

  validation {
    condition     = contains(["PROVISIONED", "PAY_PER_REQUEST"], var.billing_mode)
    error_message = "billing_mode must be PROVISIONED or PAY_PER_REQUEST."
  }
}

variable "read_capacity" {
  type    = number
  default = null
}

variable "write_capacity" {
  type    = number
  default = null
}

variable "global_secondary_indexes" {
  description = "GSIs by name; name falls back to the map key"
  type = map(object({
    name               = optional(string)
    hash_key           = string
    range_key          = optional(string)
    projection_type    = optional(string, "ALL")
    non_key_attributes = optional(list(string))
    read_capacity      = optional(number)
    write_capacity     = optional(number)
    on_demand_throughput = optional(object({
      max_read_request_units  = optional(number)
      max_write_request_units = optional(number)
    }))
  }))
  default = {}
}

variable "local_secondary_indexes" {
  type = map(object({
    name               = optional(string)
    range_key          = string
    projection_type    = optional(string, "KEYS_ONLY")
    non_key_attributes = optional(list(string))
  }))
  default = {}
}

variable "on_demand_throughput" {
  type = object({
    max_read_request_units  = optional(number)
    max_write_request_units = optional(number)
  })
  default = null
}

variable "ttl" {
  type = object({
    enabled        = optional(bool, true)
    attribute_name = string
  })
  default = null
}

variable "point_in_time_recovery" {
  type = object({
    enabled                 = optional(bool, true)
    recovery_period_in_days = optional(number)
  })
  default = null
}

variable "stream_enabled" {
  type    = bool
  default = false
}

variable "stream_view_type" {
  type    = string
  default = null
}

variable "replicas" {
  type = list(object({
    region_name            = string
    point_in_time_recovery = optional(bool, false)
    propagate_tags         = optional(bool, false)
  }))
  default = []
}

variable "table_class" {
  type    = string
  default = null
}

variable "deletion_protection_enabled" {
  type    = bool
  default = null
}

variable "tags" {
  type    = map(string)
  default = {}
}
