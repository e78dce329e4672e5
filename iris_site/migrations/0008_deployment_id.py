"""Every database gets a deployment id, named by every checkpoint it seals (issue 46).

A random UUID made here, at migration time: for a new database, and for one migrated
before this change alike. Checkpoints sealed before keep no deployment (their signed
statements, version 1, name none)."""

import iris_site.appendonly
import pgtrigger.compiler
import pgtrigger.migrations
import uuid
from django.db import migrations, models
from django.utils import timezone


def deployment_create(apps, schema_editor) -> None:
    Deployment = apps.get_model("iris_site", "Deployment")
    Deployment.objects.using(schema_editor.connection.alias).create(
        deployment_id=uuid.uuid4(), created_at=timezone.now()
    )


class Migration(migrations.Migration):

    dependencies = [
        ('iris_site', '0007_audit_append_function'),
    ]

    operations = [
        migrations.CreateModel(
            name='Deployment',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('deployment_id', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ('created_at', models.DateTimeField(editable=False)),
                ('inherited', models.BigIntegerField(editable=False, null=True)),
            ],
            options={
                'db_table': 'iris_site_deployment',
                'ordering': ['-id'],
            },
        ),
        migrations.AddField(
            model_name='auditcheckpoint',
            name='deployment',
            field=models.UUIDField(editable=False, null=True),
        ),
        iris_site.appendonly.SQLiteAppendOnly('deployment'),
        pgtrigger.migrations.AddTrigger(
            model_name='deployment',
            trigger=pgtrigger.compiler.Trigger(name='append_only', sql=iris_site.appendonly.GuardSql(func="RAISE EXCEPTION 'append-only: % rejects %', TG_TABLE_NAME, TG_OP;", hash='7dd68f7fa92279b19e7c72a832efa9d1c238c57b', operation='UPDATE OR DELETE', pgid='pgtrigger_append_only_b6cd6', table='iris_site_deployment', when='BEFORE')),
        ),
        migrations.RunPython(deployment_create, migrations.RunPython.noop),
    ]
