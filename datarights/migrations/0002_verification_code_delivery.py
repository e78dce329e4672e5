from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("datarights", "0001_data_rights_requests"),
    ]

    operations = [
        migrations.AddField(
            model_name="verificationcode",
            name="delivery",
            field=models.CharField(
                choices=[("pending", "Pending"), ("sent", "Sent"), ("failed", "Failed")],
                default="pending",
                max_length=8,
            ),
        ),
        migrations.AlterField(
            model_name="datarightstrailentry",
            name="event",
            field=models.CharField(
                choices=[('submitted', 'Submitted'), ('verified', 'Verified'), ('in-progress', 'In Progress'), ('completed', 'Completed'), ('failed', 'Failed'), ('cancelled', 'Cancelled'), ('expired', 'Expired'), ('appealed', 'Appealed'), ('code-issued', 'Code Issued'), ('code-rejected', 'Code Rejected'), ('code-destroyed', 'Code Destroyed'), ('extended', 'Extended'), ('step-completed', 'Step Completed'), ('held', 'Held'), ('reactivated', 'Reactivated'), ('downloaded', 'Downloaded'), ('artifact-removed', 'Artifact Removed'), ('mail-undelivered', 'Mail Undelivered')],
                editable=False,
                max_length=24,
            ),
        ),
    ]
