"""Leak: services that write their output into an outside place the egress model missed: build artifacts, canary
artifacts, Backup reports, SMS usage reports, a feature group's offline store, an MLflow artifact store, none of
them buckets this program creates."""
# expect: cloud-all-resource-references-in-country build
# expect: cloud-all-resource-references-in-country probe
# expect: cloud-all-resource-references-in-country backup-report
# expect: cloud-all-resource-references-in-country sms
# expect: cloud-all-resource-references-in-country features
# expect: cloud-all-resource-references-in-country mlflow

import pulumi_aws as aws

key = aws.kms.Key("key", enable_key_rotation=True, deletion_window_in_days=30)
ROLE = "arn:aws:iam::111122223333:role/service"
aws.codebuild.Project("build", service_role=ROLE, encryption_key=key.arn,
                      source={"type": "NO_SOURCE", "buildspec": "version: 0.2"},
                      environment={"compute_type": "BUILD_GENERAL1_SMALL", "image": "aws/codebuild/standard:7.0",
                                   "type": "LINUX_CONTAINER"},
                      artifacts={"type": "S3", "location": "partner-build-artifacts", "encryption_disabled": False})
aws.synthetics.Canary("probe", name="probe", execution_role_arn=ROLE, handler="index.handler",
                      runtime_version="syn-nodejs-puppeteer-9.1", zip_file="canary.zip",
                      artifact_s3_location="s3://partner-canary-artifacts/probe/",
                      schedule={"expression": "rate(5 minutes)"})
aws.backup.ReportPlan("backup-report", name="backup_report",
                      report_delivery_channel={"s3_bucket_name": "partner-backup-reports", "formats": ["CSV"]},
                      report_setting={"report_template": "BACKUP_JOB_REPORT"})
aws.sns.SmsPreferences("sms", usage_report_s3_bucket="partner-sms-usage")
aws.sagemaker.FeatureGroup("features", feature_group_name="customers", record_identifier_feature_name="id",
                           event_time_feature_name="ts", role_arn=ROLE,
                           feature_definitions=[{"feature_name": "id", "feature_type": "String"},
                                                {"feature_name": "ts", "feature_type": "String"}],
                           offline_store_config={"s3_storage_config": {"s3_uri": "s3://partner-feature-store/",
                                                                       "kms_key_id": key.arn}})
aws.sagemaker.MlflowTrackingServer("mlflow", tracking_server_name="mlflow", role_arn=ROLE,
                                   artifact_store_uri="s3://partner-mlflow-artifacts/")
