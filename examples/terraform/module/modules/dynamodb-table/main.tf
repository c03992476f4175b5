# A table module in the style of the public terraform-aws-modules
# dynamodb-table module: typed variables, a dynamic block for every nested
# block, try()/coalesce() defaults.

locals {
  table            = try(aws_dynamodb_table.this[0], {})
  replica_regions  = var.replicas[*].region_name
  provisioned      = var.billing_mode == "PROVISIONED"
}

data "aws_region" "current" {}

resource "aws_dynamodb_table" "this" {
  count = var.create ? 1 : 0

  name         = var.name
  billing_mode = var.billing_mode
  hash_key     = var.hash_key
  range_key    = var.range_key

  read_capacity  = local.provisioned ? var.read_capacity : null
  write_capacity = local.provisioned ? var.write_capacity : null

  dynamic "attribute" {
    for_each = var.attributes

    content {
      name = attribute.value.name
      type = attribute.value.type
    }
  }

  dynamic "global_secondary_index" {
    for_each = var.global_secondary_indexes

    content {
      name               = try(coalesce(global_secondary_index.value.name, global_secondary_index.key), "")
      hash_key           = global_secondary_index.value.hash_key
      range_key          = global_secondary_index.value.range_key
      projection_type    = global_secondary_index.value.projection_type
      non_key_attributes = global_secondary_index.value.non_key_attributes
      read_capacity      = global_secondary_index.value.read_capacity
      write_capacity     = global_secondary_index.value.write_capacity

      dynamic "on_demand_throughput" {
        for_each = global_secondary_index.value.on_demand_throughput != null ? [global_secondary_index.value.on_demand_throughput] : []

        content {
          max_read_request_units  = on_demand_throughput.value.max_read_request_units
          max_write_request_units = on_demand_throughput.value.max_write_request_units
        }
      }
    }
  }

  dynamic "local_secondary_index" {
    for_each = var.local_secondary_indexes

    content {
      name               = try(coalesce(local_secondary_index.value.name, local_secondary_index.key), "")
      range_key          = local_secondary_index.value.range_key
      projection_type    = local_secondary_index.value.projection_type
      non_key_attributes = local_secondary_index.value.non_key_attributes
    }
  }

  dynamic "on_demand_throughput" {
    for_each = var.on_demand_throughput != null ? [var.on_demand_throughput] : []

    content {
      max_read_request_units  = on_demand_throughput.value.max_read_request_units
      max_write_request_units = on_demand_throughput.value.max_write_request_units
    }
  }

  dynamic "ttl" {
    for_each = var.ttl != null ? [var.ttl] : []

    content {
      enabled        = ttl.value.enabled
      attribute_name = ttl.value.attribute_name
    }
  }

  dynamic "point_in_time_recovery" {
    for_each = var.point_in_time_recovery != null ? [var.point_in_time_recovery] : []

    content {
      enabled                 = point_in_time_recovery.value.enabled
      recovery_period_in_days = point_in_time_recovery.value.recovery_period_in_days
    }
  }

  dynamic "replica" {
    for_each = var.replicas

    content {
      region_name            = replica.value.region_name
      point_in_time_recovery = replica.value.point_in_time_recovery
      propagate_tags         = replica.value.propagate_tags
    }
  }

  stream_enabled              = var.stream_enabled || length(var.replicas) > 0
  stream_view_type            = var.stream_enabled || length(var.replicas) > 0 ? coalesce(var.stream_view_type, "NEW_AND_OLD_IMAGES") : null
  table_class                 = var.table_class
  deletion_protection_enabled = var.deletion_protection_enabled

  tags = merge(var.tags, { Name = format("%s", var.name) })

  timeouts {
    create = "10m"
  }
}
