# Root module: two tables from one local module, with variables from
# terraform.tfvars and a per-environment name prefix.

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

provider "aws" {
  region              = var.region
  allowed_account_ids = [var.account_id]

  default_tags {
    tags = {
      environment = var.environment
      managed_by  = "terraform"
    }
  }

  # Point the real provider at ExtendDB (which answers STS too, so no
  # skip_* flags). The 12-digit access key is account 123456789012, for
  # terraform apply and `extenddb serve --load` alike; --load ignores the
  # rest.
  access_key = "123456789012"
  secret_key = "x"
  endpoints {
    dynamodb = "http://localhost:8000"
    sts      = "http://localhost:8000"
  }
}

locals {
  prefix = "${var.environment}-"
}

module "users" {
  source = "./modules/dynamodb-table"

  name      = "${local.prefix}users"
  hash_key  = "user_id"
  range_key = "created_at"

  attributes = [
    { name = "user_id", type = "S" },
    { name = "created_at", type = "N" },
    { name = "email", type = "S" },
  ]

  global_secondary_indexes = {
    by_email = {
      hash_key        = "email"
      projection_type = "KEYS_ONLY"
      on_demand_throughput = {
        max_read_request_units  = 100
        max_write_request_units = 50
      }
    }
  }

  local_secondary_indexes = {
    recent = { range_key = "created_at" }
  }

  ttl                    = { attribute_name = "expires_at" }
  point_in_time_recovery = {}
  tags                   = var.tags
}

module "sessions" {
  source = "./modules/dynamodb-table"

  name           = "${local.prefix}sessions"
  hash_key       = "session_id"
  billing_mode   = "PROVISIONED"
  read_capacity  = var.session_capacity.read
  write_capacity = var.session_capacity.write

  attributes = [{ name = "session_id", type = "S" }]

  stream_enabled   = true
  stream_view_type = "KEYS_ONLY"
}

output "users_arn" {
  value = module.users.table_arn
}

output "sessions_arn" {
  value = module.sessions.table_arn
}
