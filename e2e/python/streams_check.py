"""boto3 dynamodbstreams client against ExtendDB (run by e2e TestStreamsBoto3).

Usage: python3 streams_check.py ENDPOINT
Exits non-zero with a message on the first mismatch.
"""
import sys

import boto3


def main(endpoint):
    kw = dict(endpoint_url=endpoint, region_name="us-east-1",
              aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
              aws_secret_access_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    ddb = boto3.client("dynamodb", **kw)
    streams = boto3.client("dynamodbstreams", **kw)
    out = ddb.create_table(
        TableName="Boto", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    arn = out["TableDescription"]["LatestStreamArn"]
    ddb.put_item(TableName="Boto", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    ddb.update_item(TableName="Boto", Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "2"}})
    ddb.delete_item(TableName="Boto", Key={"pk": {"S": "a"}})

    listed = streams.list_streams(TableName="Boto")["Streams"]
    assert [s["StreamArn"] for s in listed] == [arn], listed
    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamStatus"] == "ENABLED", desc
    assert desc["StreamViewType"] == "NEW_AND_OLD_IMAGES", desc
    assert desc["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}], desc
    records = []
    for shard in desc["Shards"]:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while it:
            page = streams.get_records(ShardIterator=it, Limit=2)
            records += page["Records"]
            if not page["Records"]:
                break
            it = page.get("NextShardIterator")
    names = [r["eventName"] for r in records]
    assert names == ["INSERT", "MODIFY", "REMOVE"], names
    mod = records[1]["dynamodb"]
    assert mod["OldImage"]["v"] == {"N": "1"} and mod["NewImage"]["v"] == {"N": "2"}, mod
    assert mod["Keys"] == {"pk": {"S": "a"}}, mod
    assert records[0]["eventSource"] == "aws:dynamodb" and records[0]["eventVersion"] == "1.1", records[0]
    seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3, seqs
    try:
        streams.get_records(ShardIterator="garbage")
    except streams.exceptions.ClientError as e:
        assert e.response["Error"]["Code"] == "ValidationException", e.response
    else:
        raise AssertionError("garbage iterator accepted")
    try:
        streams.describe_stream(StreamArn=arn + "x")
    except streams.exceptions.ResourceNotFoundException:
        pass
    else:
        raise AssertionError("unknown stream described")
    print("OK", len(records))


if __name__ == "__main__":
    main(sys.argv[1])
