from catalog.models.accelerator import Accelerator
from catalog.models.architecture import ModelArchitecture
from catalog.models.fabric import Fabric
from catalog.models.load import CatalogLoad
from catalog.models.server import ServerPlatform

__all__ = ["Accelerator", "CatalogLoad", "Fabric", "ModelArchitecture", "ServerPlatform"]
