output "table_name" {
  value = try(local.table.name, "")
}

output "table_arn" {
  value = try(local.table.arn, "")
}

output "replica_regions" {
  value = local.replica_regions
}

output "region" {
  value = data.aws_region.current.name
}
