from django.contrib import admin

from catalog.models import Accelerator, CatalogLoad, Fabric, ModelArchitecture, ServerPlatform


@admin.register(Accelerator)
class AcceleratorAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "vendor",
        "segment",
        "memory_gib",
        "memory_bw_gb_s",
        "bf16_tflops",
        "fp8_tflops",
        "board_power_w",
        "form_factor",
    )
    list_filter = ("vendor", "kind", "segment", "form_factor", "cooling", "software_stack")
    search_fields = ("name", "slug", "architecture")
    prepopulated_fields = {"slug": ("name",)}
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "slug",
                    "name",
                    "vendor",
                    "kind",
                    "segment",
                    "architecture",
                    "launch_year",
                )
            },
        ),
        ("Memory", {"fields": ("memory_gib", "memory_type", "memory_bw_gb_s")}),
        (
            "Dense peak rates",
            {
                "fields": (
                    "fp64_tflops",
                    "fp32_tflops",
                    "tf32_tflops",
                    "fp16_tflops",
                    "bf16_tflops",
                    "fp8_tflops",
                    "int8_tflops",
                    "int4_tflops",
                    "headline_sparsity",
                    "bf16_sparse_tflops",
                )
            },
        ),
        (
            "Board and links",
            {
                "fields": (
                    "board_power_w",
                    "form_factor",
                    "cooling",
                    "slot_width",
                    "ecc",
                    "mig_instances",
                    "scale_up_link",
                    "scale_up_gb_s",
                    "scale_up_domain",
                    "pcie_gen",
                    "pcie_lanes",
                )
            },
        ),
        ("Software", {"fields": ("software_stack", "training_maturity", "inference_maturity")}),
        ("Sources", {"fields": ("source_urls", "notes")}),
    )


@admin.register(ServerPlatform)
class ServerPlatformAdmin(admin.ModelAdmin):
    list_display = ("name", "vendor", "accelerator_slots", "topology", "rack_units", "max_power_kw")
    list_filter = ("vendor", "topology", "cooling")
    search_fields = ("name", "slug")
    autocomplete_fields = ("fixed_accelerator",)


@admin.register(Fabric)
class FabricAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "port_gbps", "latency_us")
    list_filter = ("kind",)
    search_fields = ("name", "slug")


@admin.register(ModelArchitecture)
class ModelArchitectureAdmin(admin.ModelAdmin):
    list_display = ("name", "family", "params", "layers", "hidden", "heads", "kv_heads", "experts")
    list_filter = ("family",)
    search_fields = ("name", "slug")


@admin.register(CatalogLoad)
class CatalogLoadAdmin(admin.ModelAdmin):
    list_display = ("started_at", "status", "data_digest")
    list_filter = ("status",)
    readonly_fields = ("started_at", "finished_at", "status", "data_digest", "counts", "error")

    def has_add_permission(self, request):
        return False
