# One "orders" table in two Regions of two accounts: production in
# eu-west-1 (account 111111111111) and a disaster-recovery copy in
# us-east-1 (account 222222222222). Each provider alias declares its Region
# and, through its access key, its account; each resource picks its provider.

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

provider "aws" {
  alias               = "prod"
  region              = "eu-west-1"
  allowed_account_ids = ["111111111111"]

  default_tags {
    tags = {
      stage = "prod"
    }
  }

  # ExtendDB answers STS GetCallerIdentity: no skip_* flags needed. A
  # 12-digit access key is that account, for terraform apply and --load.
  access_key = "111111111111"
  secret_key = "x"
  endpoints {
    dynamodb = "http://localhost:8000"
    sts      = "http://localhost:8000"
  }
}

provider "aws" {
  alias  = "dr"
  region = "us-east-1"

  default_tags {
    tags = {
      stage = "dr"
    }
  }

  # Any other key is the account --access-key-account maps it to
  # (AKIADR0000000000=222222222222), for terraform apply and --load alike.
  access_key = "AKIADR0000000000"
  secret_key = "x"
  endpoints {
    dynamodb = "http://localhost:8000"
    sts      = "http://localhost:8000"
  }
}

variable "table_name" {
  type    = string
  default = "orders"
}

variable "caps" {
  description = "On-demand throughput caps of the table and its index"
  type = object({
    read  = number
    write = number
  })
  default = { read = 400, write = 200 }
}

locals {
  attributes = {
    customer_id = "S"
    order_id    = "S"
    status      = "S"
    placed_at   = "N"
  }
  regions = {
    prod = "eu-west-1"
    dr   = "us-east-1"
  }
}

data "aws_caller_identity" "prod" {
  provider = aws.prod
}

resource "aws_dynamodb_table" "prod" {
  provider = aws.prod

  name         = var.table_name
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "customer_id"
  range_key    = "order_id"

  dynamic "attribute" {
    for_each = local.attributes
    content {
      name = attribute.key
      type = attribute.value
    }
  }

  on_demand_throughput {
    max_read_request_units  = var.caps.read
    max_write_request_units = var.caps.write
  }

  global_secondary_index {
    name               = "by_status"
    hash_key           = "status"
    range_key          = "placed_at"
    projection_type    = "INCLUDE"
    non_key_attributes = ["total"]

    on_demand_throughput {
      max_read_request_units  = var.caps.read / 2
      max_write_request_units = var.caps.write / 2
    }
  }

  ttl {
    enabled        = true
    attribute_name = "expires_at"
  }

  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  point_in_time_recovery {
    enabled = true
  }

  tags = {
    owner = data.aws_caller_identity.prod.account_id
  }
}

resource "aws_dynamodb_table" "dr" {
  provider = aws.dr

  name         = aws_dynamodb_table.prod.name
  billing_mode = aws_dynamodb_table.prod.billing_mode
  hash_key     = "customer_id"
  range_key    = "order_id"

  dynamic "attribute" {
    for_each = local.attributes
    content {
      name = attribute.key
      type = attribute.value
    }
  }

  on_demand_throughput {
    max_read_request_units  = var.caps.read
    max_write_request_units = var.caps.write
  }

  global_secondary_index {
    name               = "by_status"
    hash_key           = "status"
    range_key          = "placed_at"
    projection_type    = "INCLUDE"
    non_key_attributes = ["total"]

    on_demand_throughput {
      max_read_request_units  = var.caps.read / 2
      max_write_request_units = var.caps.write / 2
    }
  }

  ttl {
    enabled        = true
    attribute_name = "expires_at"
  }

  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  # The DR copy names its source: a cross-Region reference. (Not an
  # aws_dynamodb_tag: that resource fights the tags of a table Terraform
  # manages, and every plan would show a change.)
  tags = {
    source_table = aws_dynamodb_table.prod.arn
  }
}

# A seed item in production. Numbers are written as DynamoDB returns them
# (42.5, not 42.50): the provider compares the item it reads back as text.
resource "aws_dynamodb_table_item" "welcome" {
  provider   = aws.prod
  table_name = aws_dynamodb_table.prod.name
  hash_key   = aws_dynamodb_table.prod.hash_key
  range_key  = aws_dynamodb_table.prod.range_key

  item = jsonencode({
    customer_id = { S = "c-1" }
    order_id    = { S = "o-1" }
    status      = { S = "PLACED" }
    placed_at   = { N = "1767225600" }
    total       = { N = "42.5" }
  })
}

# ExtendDB does not model queues; this is skipped with one line.
resource "aws_sqs_queue" "events" {
  provider = aws.prod
  name     = "order-events"
}

output "prod_arn" {
  value = aws_dynamodb_table.prod.arn
}

output "dr_arn" {
  value = aws_dynamodb_table.dr.arn
}
