import factory

from iris_site.enums import Consumer, OperatorRole, UserKind
from iris_site.models import OperatorProfile, ServiceClient, Tenant, TenantMembership, User
from iris_site.models.identity import operator_writes

PASSWORD = "correct-horse-battery"


class TenantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tenant

    name = factory.Sequence(lambda n: f"Tenant {n}")
    slug = factory.Sequence(lambda n: f"tenant-{n}")


class MemberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"member{n}@example.test")
    kind = UserKind.MEMBER
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def tenants(self, create, extracted, **kwargs):
        for tenant in extracted or []:
            TenantMembership.objects.create(tenant=tenant, user=self)
        self.save()


class OperatorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    class Params:
        role = OperatorRole.SUPPORT
        tenant = None

    email = factory.Sequence(lambda n: f"operator{n}@example.test")
    kind = UserKind.OPERATOR
    is_staff = True
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)
    profile = factory.RelatedFactory(
        "tests.iris_site.factories.OperatorProfileFactory",
        factory_related_name="user",
        role=factory.SelfAttribute("..role"),
        tenant=factory.SelfAttribute("..tenant"),
    )

    @factory.post_generation
    def persist(self, create, extracted, **kwargs):
        self.save()


class OperatorProfileFactory(factory.django.DjangoModelFactory):
    """A fixture operator's role, as if seeded: written around `iris_site.operators`, so it
    records no account change (no links) and is allowed only here."""

    class Meta:
        model = OperatorProfile

    role = OperatorRole.SUPPORT
    tenant = None

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        with operator_writes():
            return super()._create(model_class, *args, **kwargs)


class ServiceClientFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ServiceClient

    consumer = Consumer.ASSISTANT
    label = factory.Sequence(lambda n: f"client-{n}")
